package dev.ateom.microvm;

import dev.ateom.microvm.api.EventRoutes;
import dev.ateom.microvm.api.HostRoutes;
import dev.ateom.microvm.api.OpenApiEndpoint;
import dev.ateom.microvm.api.OperationRoutes;
import dev.ateom.microvm.api.SandboxRoutes;
import dev.ateom.microvm.api.SnapshotRoutes;
import dev.ateom.microvm.api.StoreRoutes;
import dev.ateom.microvm.api.TemplateRoutes;
import dev.ateom.microvm.extension.DaemonExtension;
import dev.ateom.microvm.extension.ExtensionContext;
import dev.ateom.microvm.template.TemplateService;
import dev.ateom.microvm.vm.VsockHttpCheck;
import dev.ateom.microvm.config.DaemonConfig;
import dev.ateom.microvm.events.SandboxEvent;
import dev.ateom.microvm.host.ChvVersion;
import dev.ateom.microvm.host.HostFactsProbe;
import dev.ateom.microvm.host.HostInventory;
import dev.ateom.microvm.remote.RemoteSnapshots;
import dev.ateom.microvm.operations.OperationRegistry;
import dev.ateom.microvm.operations.OperationRetention;
import dev.ateom.microvm.http.RequestBodies;
import dev.ateom.microvm.sandbox.GuestProbe;
import dev.ateom.microvm.sandbox.SandboxManager;
import dev.ateom.microvm.sandbox.SandboxNetworks;
import dev.ateom.microvm.sandbox.SandboxStore;
import dev.ateom.microvm.sandbox.SnapshotCatalog;
import dev.ateom.microvm.sandbox.SnapshotSpecs;
import dev.ateom.microvm.sandbox.SnapshotWriter;
import dev.ateom.microvm.sandbox.SystemInfoVolumes;
import dev.ateom.microvm.systeminfo.SystemInfoService;
import dev.ateom.microvm.systeminfo.SystemInfoSettings;
import dev.ateom.microvm.vm.VsockGuestProbe;
import dev.ateom.snapshot.SnapshotStore;
import dev.ateom.microvm.http.ApiServer;
import dev.ateom.microvm.http.ApiToken;
import dev.ateom.microvm.http.HealthEndpoint;
import dev.ateom.microvm.http.ListenAddressCheck;
import dev.ateom.microvm.http.MetricsEndpoint;
import dev.ateom.microvm.http.RouteTable;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CountDownLatch;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/** The running daemon: composes configuration, token, metrics, sandbox management and the REST API. */
public final class Daemon implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Daemon.class.getName());

    private final DaemonConfig config;
    private final ApiServer server;
    private final SandboxManager sandboxes;
    private final List<AutoCloseable> resources;
    private final List<RouteTable> services;
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** Started extensions, closed first at stop (they use the sandboxes and must not see them suspended). */
    private final List<AutoCloseable> extensions = new ArrayList<>();

    private Daemon(DaemonConfig config, ApiServer server, SandboxManager sandboxes, List<AutoCloseable> resources,
                   List<RouteTable> services) {
        this.services = services;
        this.config = config;
        this.server = server;
        this.sandboxes = sandboxes;
        this.resources = resources;
    }

    public static Daemon start(DaemonConfig config) { return start(config, new VsockGuestProbe()); }

    /** {@link #start(DaemonConfig)} with another way to reach the guests' probes (tests fake it for guests they do not boot). */
    public static Daemon start(DaemonConfig config, GuestProbe probe) {
        PrivateDirs.ensure(config.stateDir());
        PrivateDirs.ensure(config.runDir());
        ListenAddressCheck.warning(config.listenHost()).ifPresent(warning -> LOG.log(WARNING, warning));
        ApiToken token = ApiToken.loadOrCreate(config.tokenFile());
        LOG.log(INFO, (token.created() ? "created API token file " : "API token file ") + token.file());

        logAllowedRoots(config);

        PrometheusRegistry registry = new PrometheusRegistry();

        List<AutoCloseable> resources = new ArrayList<>();
        // virtiofsd's probe (two process starts) runs beside the rest of the start and the API's first answers
        HostTools tools = HostTools.checkInBackground(config);
        resources.add(tools); // the virtiofsd launcher's log rotation
        // the host's facts too, and the warnings they make (kvm_pvm cannot snapshot), logged once the hypervisor's version is known
        HostInventory host = HostInventory.probeInBackground(HostFactsProbe.ofThisHost(), tools::hypervisorFacts, tools::hypervisorVersion);
        SandboxManager sandboxes;
        RemoteSnapshots remote;
        try {
            SnapshotStore snapshotStore = SnapshotStore.open(config.stateDir());
            PrivateDirs.ensure(config.snapshotsDir());
            PrivateDirs.ensure(config.sandboxesDir());
            SnapshotSpecs snapshotSpecs = new SnapshotSpecs();
            SnapshotCatalog snapshots = new SnapshotCatalog(snapshotStore, snapshotSpecs, config.sandboxesDir());
            SnapshotWriter snapshotWriter = new SnapshotWriter(snapshotStore, snapshotSpecs);
            SystemInfoService systemInfo = new SystemInfoService(
                    SystemInfoSettings.DEFAULT.withReconcileInterval(config.syncReconcileInterval()), registry);
            resources.add(systemInfo);
            // closed after the sandboxes (their suspends at stop give the slots back), so listed before they are put first
            SandboxNetworks networks = SandboxNetworks.of(config.network());
            resources.add(networks);
            sandboxes = new SandboxManager(config, new SandboxStore(config.sandboxesDir()), snapshots, snapshotWriter,
                    new SystemInfoVolumes(systemInfo), probe, tools, networks, registry);
            resources.addFirst(sandboxes); // from here on: its VMM pool must not outlive a start that fails below
            SandboxManager manager = sandboxes;
            systemInfo.reportFailuresTo((id, volume, reason) -> manager.events().publish(SandboxEvent.syncError(id,
                    "system-info volume " + volume + " keeps its last good content: " + reason)));
            snapshots.protect(sandboxes::isLatestOfSuspended);
            remote = config.snapshotStore()
                    .map(store -> RemoteSnapshots.start(store, config.stateDir(), snapshotStore,
                            () -> tools.hypervisorVersion().map(ChvVersion::toString), registry))
                    .orElseGet(RemoteSnapshots::notConfigured);
            resources.add(remote);
            if (remote.configured()) {
                snapshots.fetchMissingWith(remote);
                snapshotWriter.annotateWith(remote.snapshotAnnotations());
                sandboxes.afterSuspend(remote::pushAfterSuspend);
                sandboxes.useLeases(remote);
                remote.beforePushing(sandboxes::beforePush);
                remote.beforeVisibleAfterSuspend(sandboxes::beforeVisibleAfterSuspend);
            }
            sandboxes.recover();
        } catch (IOException e) {
            closeAll(resources);
            throw new UncheckedIOException("cannot open the state dir " + config.stateDir(), e);
        } catch (RuntimeException e) {
            // e.g. a network pool that collides with the host's routes: nothing started may outlive the refusal
            closeAll(resources);
            throw e;
        }

        RequestBodies bodies = new RequestBodies(config.maxRequestBytes());
        List<RouteTable> services = new ArrayList<>();
        services.add(new HealthEndpoint());
        MetricsEndpoint metrics = new MetricsEndpoint(registry);
        services.add(metrics);
        services.add(new OpenApiEndpoint());
        OperationRegistry operations = new OperationRegistry(sandboxes.events(), OperationRetention.of(config.operationRetention()),
                InstantSource.system());
        services.add(new SandboxRoutes(sandboxes, bodies, operations));
        services.add(new OperationRoutes(operations));
        services.add(new SnapshotRoutes(sandboxes.snapshotCatalog(), remote));
        services.add(new StoreRoutes(remote));
        services.add(new HostRoutes(host));
        services.add(new EventRoutes(sandboxes.events()));
        TemplateService templates = new TemplateService(sandboxes, new VsockHttpCheck());
        services.add(new TemplateRoutes(templates, bodies));

        ApiServer server = new ApiServer(config.listenHost(), config.port(), config.maxRequestBytes(), token, services);
        Daemon daemon = new Daemon(config, server, sandboxes, resources, services);
        try {
            startExtensions(new ExtensionContext(config, token, sandboxes, templates), daemon.extensions);
        } catch (RuntimeException e) {
            daemon.close();
            throw e;
        }
        daemon.writePortFile();
        LOG.log(INFO, "ateom listening on http://" + config.listenHost() + ":" + server.port()
                + " (state " + config.stateDir() + ", run " + config.runDir() + ")");
        metrics.registerJvmMetricsInBackground();
        sandboxes.startVmmPool();
        return daemon;
    }

    public int port() { return server.port(); }

    public DaemonConfig config() { return config; }

    /** Blocks until {@link #close()} ran, e.g. from the SIGTERM shutdown hook. */
    public void awaitStop() throws InterruptedException { stopped.await(); }

    @Override
    public void close() {
        if (stopped.getCount() == 0) return;
        LOG.log(INFO, "ateom shutting down");
        closeAll(extensions.reversed());
        sandboxes.events().close(); // ends the events streams, which the server would otherwise wait for
        server.close();
        closeAll(resources);
        stopped.countDown();
        LOG.log(INFO, "ateom stopped");
    }

    public SandboxManager sandboxes() { return sandboxes; }

    /** Every route the API serves (method and path template). */
    public List<RouteTable.Route> routes() {
        return services.stream().flatMap(service -> service.declaredRoutes().stream()).toList();
    }

    private static void closeAll(List<AutoCloseable> resources) {
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                LOG.log(WARNING, "closing " + resource.getClass().getSimpleName() + " failed: " + e);
            }
        }
    }

    /** Every {@link DaemonExtension} on the class path, each asked to start; a failing one stops the start. */
    private static void startExtensions(ExtensionContext context, List<AutoCloseable> started) {
        for (DaemonExtension extension : ServiceLoader.load(DaemonExtension.class)) {
            extension.start(context).ifPresent(started::add);
        }
    }

    private static void logAllowedRoots(DaemonConfig config) {
        LOG.log(INFO, "image roots " + config.imageRoots() + ", host-directory roots " + config.hostDirectoryRoots());
        if (config.imageRoots().isEmpty()) LOG.log(WARNING, "--image-roots is empty: every create will be refused");
        for (Path root : config.imageRoots()) {
            if (root.startsWith(config.stateDir()) || root.startsWith(config.runDir())) {
                LOG.log(WARNING, "image root " + root + " lies in the daemon's state or run dir: nothing in it can be used");
            }
        }
    }

    private void writePortFile() {
        Path file = config.portFile();
        if (file == null) return;
        try {
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, server.port() + "\n");
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write port file " + file, e);
        }
    }
}
