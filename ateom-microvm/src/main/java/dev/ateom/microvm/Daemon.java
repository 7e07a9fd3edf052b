package dev.ateom.microvm;

import dev.ateom.microvm.config.DaemonConfig;
import dev.ateom.microvm.http.ApiServer;
import dev.ateom.microvm.http.ApiToken;
import dev.ateom.microvm.http.HealthEndpoint;
import dev.ateom.microvm.http.MetricsEndpoint;
import io.helidon.webserver.http.HttpService;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/** The running daemon: composes configuration, token, metrics, sandbox management and the REST API. */
public final class Daemon implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Daemon.class.getName());

    private final DaemonConfig config;
    private final ApiServer server;
    private final CountDownLatch stopped = new CountDownLatch(1);

    private Daemon(DaemonConfig config, ApiServer server) {
        this.config = config;
        this.server = server;
    }

    public static Daemon start(DaemonConfig config) {
        createPrivateDir(config.stateDir());
        createPrivateDir(config.runDir());
        ApiToken token = ApiToken.loadOrCreate(config.tokenFile());
        LOG.log(INFO, (token.created() ? "created API token file " : "API token file ") + token.file());

        HypervisorCheck hypervisor = HypervisorCheck.of(config.cloudHypervisor());
        if (hypervisor.available()) {
            LOG.log(INFO, "cloud-hypervisor: " + hypervisor.resolved().orElseThrow());
        } else {
            LOG.log(WARNING, hypervisor.problem());
        }

        PrometheusRegistry registry = new PrometheusRegistry();
        JvmMetrics.builder().register(registry);

        List<HttpService> services = new ArrayList<>();
        services.add(new HealthEndpoint());
        services.add(new MetricsEndpoint(registry));

        ApiServer server = new ApiServer(config.listenHost(), config.port(), config.maxRequestBytes(), token, services);
        Daemon daemon = new Daemon(config, server);
        daemon.writePortFile();
        LOG.log(INFO, "ateom listening on http://" + config.listenHost() + ":" + server.port()
                + " (state " + config.stateDir() + ", run " + config.runDir() + ")");
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
        server.close();
        stopped.countDown();
        LOG.log(INFO, "ateom stopped");
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

    private static void createPrivateDir(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create directory " + dir, e);
        }
    }
}
