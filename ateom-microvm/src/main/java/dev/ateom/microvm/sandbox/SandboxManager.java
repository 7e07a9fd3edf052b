package dev.ateom.microvm.sandbox;

import dev.ateom.chv.ChvException;
import dev.ateom.microvm.HostTools;
import dev.ateom.microvm.config.DaemonConfig;
import dev.ateom.microvm.http.ApiException;
import dev.ateom.microvm.http.Problem;
import dev.ateom.microvm.logging.LogContext;
import dev.ateom.microvm.vm.OnDemandSnapshotCompletion;
import dev.ateom.microvm.timing.OperationMetrics;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.microvm.timing.StepTimer;
import dev.ateom.microvm.systeminfo.spec.ActorIdentity;
import dev.ateom.virtiofsd.VirtiofsdLauncher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The sandbox lifecycle (DESIGN.md, Lifecycle): create, clone, suspend, resume, delete, and recovery at start.
 * One lock per sandbox; every step that starts something registers its undo in a {@link Rollback}; every
 * transition is persisted before the daemon acts on it, so a crash at any point is recoverable.
 */
public final class SandboxManager implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SandboxManager.class.getName());
    /** The persisted operation of a DELETING sandbox whose snapshots go too. */
    static final String DELETE_WITH_SNAPSHOTS = "deleteWithSnapshots";
    /** How long a clean daemon stop waits for the running sandboxes' suspends (systemd's default stop timeout is 90 s). */
    private static final Duration SHUTDOWN_SUSPEND_LIMIT = Duration.ofSeconds(60);

    private final DaemonConfig config;
    private final SandboxStore store;
    private final VirtiofsdLauncher virtiofsd;
    private final SnapshotCatalog snapshots;
    private final SystemInfoVolumes systemInfo;
    private final GuestProbe probe;
    private final HostTools tools;
    private final OperationMetrics metrics;
    private final VmStarter vms;
    private final Map<String, SandboxEntry> sandboxes = new ConcurrentHashMap<>();

    public SandboxManager(DaemonConfig config, SandboxStore store, VirtiofsdLauncher virtiofsd, SnapshotCatalog snapshots,
                          SystemInfoVolumes systemInfo, GuestProbe probe, HostTools tools,
                          io.prometheus.metrics.model.registry.PrometheusRegistry registry) {
        this.config = config;
        this.store = store;
        this.virtiofsd = virtiofsd;
        this.snapshots = snapshots;
        this.systemInfo = systemInfo;
        this.probe = probe;
        this.tools = tools;
        this.metrics = new OperationMetrics(registry, this::countByState);
        this.vms = new VmStarter(config, store, virtiofsd, snapshots, tools);
    }

    // ------------------------------------------------------------------ queries

    public List<SandboxRecord> list() {
        return sandboxes.values().stream().map(SandboxEntry::record).sorted(Comparator.comparing(SandboxRecord::id)).toList();
    }

    public SandboxRecord get(String id) { return entry(id).record(); }

    public SnapshotCatalog snapshotCatalog() { return snapshots; }

    /** Whether a snapshot is the one a suspended sandbox would resume from (deleting it would strand the sandbox). */
    public boolean isLatestOfSuspended(String snapshotId) {
        return sandboxes.values().stream().map(SandboxEntry::record)
                .anyMatch(r -> snapshotId.equals(r.latestSnapshotId())
                        && (r.state() == SandboxState.SUSPENDED || r.state() == SandboxState.RESUMING));
    }

    private Map<String, Long> countByState() {
        Map<String, Long> counts = new TreeMap<>();
        for (SandboxState s : SandboxState.values()) counts.put(s.name(), 0L);
        sandboxes.values().forEach(e -> counts.merge(e.record().state().name(), 1L, Long::sum));
        return counts;
    }

    // ------------------------------------------------------------------ create / clone

    public OperationResult create(SandboxSpec request) {
        List<Problem.FieldError> errors = SandboxSpecValidator.validate(request).stream()
                .map(v -> new Problem.FieldError(v.field(), v.reason())).toList();
        if (!errors.isEmpty()) throw ApiException.invalidFields(errors);
        requireHypervisor();
        String id = request.id() != null ? request.id() : generateId();
        SnapshotCatalog.SnapshotHandle source = request.isClone() ? snapshots.open(request.fromSnapshot()) : null;
        SandboxSpec spec = request.isClone() ? request.cloneOf(source.sandboxSpec(), id) : request.withId(id);
        ActorIdentity identity = new ActorIdentity(spec.identity().name(), spec.identity().namespace(), UUID.randomUUID().toString());
        Instant now = Instant.now();
        SandboxRecord record = new SandboxRecord(id, spec, identity, SandboxState.CREATING, null, now, now,
                source == null ? null : source.id(), null, List.of(), null, 0, request.isClone() ? "clone" : "create", null);
        SandboxEntry entry = new SandboxEntry(record);
        if (sandboxes.putIfAbsent(id, entry) != null) {
            throw new ApiException(409, "already-exists", "Sandbox already exists", "sandbox '" + id + "' already exists", id,
                    sandboxes.get(id).record().state().name(), null);
        }
        String operation = request.isClone() ? "clone" : "create";
        try (var lock = entry.acquire(operation); var log = LogContext.with("sandbox", id)) {
            store.save(record);
            LOG.log(INFO, operation + " sandbox " + id + " as " + identity.namespace() + "/" + identity.name()
                    + (source != null ? " from snapshot " + source.id() : ""));
            return request.isClone() ? runClone(entry, source) : runCreate(entry);
        }
    }

    private OperationResult runCreate(SandboxEntry entry) {
        SandboxRecord record = entry.record();
        SandboxLayout layout = SandboxLayout.of(config, record.id());
        StepTimer timer = new StepTimer("create");
        Rollback rollback = new Rollback();
        try {
            timer.run("dirs", () -> createSandboxDirs(layout, record.spec(), rollback));
            timer.run("systemInfo", () -> systemInfo.writeInitial(layout, record.spec().systemInfoOrEmpty(), record.identity()));
            LiveVm live = vms.boot(entry, layout, 1, timer, rollback);
            entry.live(live);
            awaitReady(record, layout.epoch(1), timer, false);
            entry.live(live.withSync(timer.step("sync", () ->
                    systemInfo.startSync(layout, record.spec().systemInfoOrEmpty(), record.identity()))));
            rollback.clear();
            return finish(entry, SandboxState.RUNNING, "create", timer, null);
        } catch (RuntimeException e) {
            throw fail(entry, "create", timer, rollback, e, null);
        }
    }

    private OperationResult runClone(SandboxEntry entry, SnapshotCatalog.SnapshotHandle source) {
        SandboxRecord record = entry.record();
        SandboxLayout layout = SandboxLayout.of(config, record.id());
        StepTimer timer = new StepTimer("clone");
        Rollback rollback = new Rollback();
        try {
            timer.run("dirs", () -> createSandboxDirs(layout, null, rollback));
            timer.run("durable", () -> snapshots.extractDurable(source, layout.durableDir()));
            timer.run("systemInfo", () -> systemInfo.regenerate(layout, record.spec().systemInfoOrEmpty(), record.identity()));
            LiveVm live = vms.restore(entry, layout, source, 1, timer, rollback);
            entry.live(live);
            awaitReady(record, layout.epoch(1), timer, true);
            entry.live(live.withSync(timer.step("sync", () ->
                    systemInfo.startSync(layout, record.spec().systemInfoOrEmpty(), record.identity()))));
            rollback.clear();
            return finish(entry, SandboxState.RUNNING, "clone", timer, null);
        } catch (RuntimeException e) {
            throw fail(entry, "clone", timer, rollback, e, null);
        }
    }

    private void createSandboxDirs(SandboxLayout layout, SandboxSpec specOrNull, Rollback rollback) {
        try {
            Files.createDirectories(layout.sandboxDir());
            Files.createDirectories(layout.systemInfoDir());
            // a clone's durable dir is laid down whole by the archive extraction, which wants it absent
            if (specOrNull != null) {
                Files.createDirectories(layout.durableDir());
                for (String dir : specOrNull.durableDirsOrEmpty()) Files.createDirectories(layout.durableDir().resolve(dir));
            }
            Files.createDirectories(layout.runDir());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the directories of sandbox " + layout.sandboxId(), e);
        }
        rollback.add("remove durable, system-info and run dirs", () -> {
            TreeRemoval.removeRecursively(layout.durableDir());
            TreeRemoval.removeRecursively(layout.systemInfoDir());
            TreeRemoval.removeRecursively(layout.runDir());
        });
    }

    // ------------------------------------------------------------------ suspend

    public OperationResult suspend(String id) {
        SandboxEntry entry = entry(id);
        try (var lock = entry.acquire("suspend"); var log = LogContext.with("sandbox", id)) {
            requireState(entry, SandboxState.Operation.SUSPEND, "suspend");
            requireHypervisor();
            return runSuspend(entry);
        }
    }

    private OperationResult runSuspend(SandboxEntry entry) {
        SandboxLayout layout = SandboxLayout.of(config, entry.record().id());
        StepTimer timer = new StepTimer("suspend");
        Rollback rollback = new Rollback();
        LiveVm live = entry.live();
        transition(entry, SandboxState.SUSPENDING, "suspend");
        String snapshotId = null;
        try {
            timer.run("stopSync", () -> closeQuietly(live.sync(), "system-info sync"));
            rollback.add("restart system-info sync", () -> entry.live(entry.live().withSync(
                    systemInfo.startSync(layout, entry.record().spec().systemInfoOrEmpty(), entry.record().identity()))));
            var chv = chvClient(entry, layout);
            timer.run("pause", chv::pause);
            rollback.add("resume the VM", chv::resume);
            SnapshotCatalog.Staging staging = timer.step("stage", () -> snapshots.begin(entry.record().id()));
            rollback.add("discard staging dir", staging::discard);
            timer.run("snapshot", () -> chv.snapshot(staging.chvDir()));
            String chvVersion = chv.ping().version();
            timer.run("complete", () -> OnDemandSnapshotCompletion.complete(staging.chvDir().resolve("memory-ranges"),
                    live.onDemandSource(), chvVersion));
            timer.run("archive", () -> staging.archiveDurable(layout.durableDir()));
            // commit also punches holes over zero pages of memory-ranges, so the snapshot stays sparse
            snapshotId = timer.step("commit", () -> staging.commit(entry.record(), chvVersion));
            rollback.clear();
        } catch (RuntimeException e) {
            // Not committed: undo back to a running VM (the snapshot, if any, is gone); FAILED only if that fails too.
            SandboxRecord before = entry.record();
            rollback.run(e);
            boolean stillRunning = isVmRunning(entry, layout);
            if (stillRunning) {
                transition(entry, SandboxState.RUNNING, "suspend");
                metrics.record("suspend", false, timer.elapsedSeconds());
                throw operationFailed(before, "suspend", SandboxState.RUNNING, e, "the sandbox is still running");
            }
            throw fail(entry, "suspend", timer, new Rollback(), e, null);
        }
        // Committed: from here the snapshot is the sandbox. Teardown failures are logged, never undo the commit.
        final String committed = snapshotId;
        new DurableSyncMarker(layout.sandboxDir()).markInSyncWith(committed);
        entry.record(entry.record().withSnapshot(committed));
        timer.run("teardown", () -> teardown(entry, layout));
        return finish(entry, SandboxState.SUSPENDED, "suspend", timer, committed);
    }

    // ------------------------------------------------------------------ resume

    public OperationResult resume(String id) {
        SandboxEntry entry = entry(id);
        try (var lock = entry.acquire("resume"); var log = LogContext.with("sandbox", id)) {
            requireState(entry, SandboxState.Operation.RESUME, "resume");
            requireHypervisor();
            return runResume(entry);
        }
    }

    private OperationResult runResume(SandboxEntry entry) {
        SandboxRecord record = entry.record();
        SandboxLayout layout = SandboxLayout.of(config, record.id());
        StepTimer timer = new StepTimer("resume");
        Rollback rollback = new Rollback();
        transition(entry, SandboxState.RESUMING, "resume");
        try {
            SnapshotCatalog.SnapshotHandle snapshot = timer.step("verify", () -> snapshots.open(record.latestSnapshotId()));
            DurableSyncMarker durable = new DurableSyncMarker(layout.sandboxDir());
            if (!durable.isInSyncWith(snapshot.id())) {
                LOG.log(INFO, "durable dir of " + record.id() + " may be newer than snapshot " + snapshot.id() + ": laying it from the archive");
                timer.run("durable", () -> snapshots.replaceDurable(snapshot, layout.durableDir()));
                durable.markInSyncWith(snapshot.id());
            }
            timer.run("systemInfo", () -> systemInfo.regenerate(layout, record.spec().systemInfoOrEmpty(), record.identity()));
            int epoch = record.epochs() + 1;
            LiveVm live = vms.restore(entry, layout, snapshot, epoch, timer, rollback);
            entry.live(live);
            awaitReady(record, layout.epoch(epoch), timer, true);
            entry.live(live.withSync(timer.step("sync", () ->
                    systemInfo.startSync(layout, record.spec().systemInfoOrEmpty(), record.identity()))));
            rollback.clear();
            return finish(entry, SandboxState.RUNNING, "resume", timer, null);
        } catch (RuntimeException e) {
            // The snapshot is untouched: the sandbox stays SUSPENDED and the resume can be retried.
            rollback.run(e);
            entry.live(null);
            SandboxRecord before = entry.record();
            entry.record(before.withRuntime(null));
            transition(entry, SandboxState.SUSPENDED, "resume");
            metrics.record("resume", false, timer.elapsedSeconds());
            throw operationFailed(before, "resume", SandboxState.SUSPENDED, e, "the sandbox is still suspended; the resume can be retried");
        }
    }

    // ------------------------------------------------------------------ delete

    public void delete(String id, boolean withSnapshots) {
        SandboxEntry entry = entry(id);
        try (var lock = entry.acquire("delete"); var log = LogContext.with("sandbox", id)) {
            requireState(entry, SandboxState.Operation.DELETE, "delete");
            StepTimer timer = new StepTimer("delete");
            SandboxLayout layout = SandboxLayout.of(config, id);
            // a delete that failed half way asked for its snapshots to go: finishing it honours that
            boolean dropSnapshots = withSnapshots || entry.record().state() == SandboxState.DELETING
                    && DELETE_WITH_SNAPSHOTS.equals(entry.record().lastOperation());
            // the operation name persists the request, so a restart after a crash finishes it whole
            transition(entry, SandboxState.DELETING, dropSnapshots ? DELETE_WITH_SNAPSHOTS : "delete");
            try {
                timer.run("teardown", () -> teardown(entry, layout));
                timer.run("leftovers", () -> killLeftovers(entry.record()));
                timer.run("runDir", () -> TreeRemoval.removeRecursively(layout.runDir()));
                if (dropSnapshots) {
                    timer.run("snapshots", () -> entry.record().snapshotIds().forEach(snapshots::deleteIfPresent));
                }
                timer.run("record", () -> store.deleteAll(id));
            } catch (RuntimeException e) {
                metrics.record("delete", false, timer.elapsedSeconds());
                throw operationFailed(entry.record(), "delete", SandboxState.DELETING, e,
                        "the sandbox stays DELETING; repeat the delete to finish it");
            }
            sandboxes.remove(id);
            metrics.record("delete", true, timer.elapsedSeconds());
            LOG.log(INFO, "deleted sandbox " + id + (dropSnapshots ? " and its snapshots" : ""));
        }
    }

    // ------------------------------------------------------------------ boot and restore

    private void awaitReady(SandboxRecord record, SandboxLayout.EpochLayout el, StepTimer timer, boolean afterRestore) {
        ReadinessSpec readiness = record.spec().readinessOrDefault();
        if (!readiness.usesProbe()) return;
        timer.run("ready", () -> probe.awaitReady(el.vsockSocket(), readiness.port(), Duration.ofSeconds(readiness.timeoutOrDefault())));
        // A restored guest's clock is behind by the time it spent saved.
        if (afterRestore) timer.run("clock", () -> probe.setClock(el.vsockSocket(), readiness.port(), Instant.now()));
    }

    // ------------------------------------------------------------------ teardown and cleanup

    /** Stops the sandbox's sync, CHV and virtiofsd, whichever exist; never throws. */
    private void teardown(SandboxEntry entry, SandboxLayout layout) {
        LiveVm live = entry.live();
        entry.live(null);
        if (live != null) stopLive(entry, layout, live);
        // the restore dirs hold hard links to snapshot files an OnDemand VM faulted from: only now are they free
        TreeRemoval.removeRecursively(layout.restoreRoot());
    }

    private void stopLive(SandboxEntry entry, SandboxLayout layout, LiveVm live) {
        closeQuietly(live.sync(), "system-info sync");
        try {
            if (live.chv() != null) {
                live.chv().stop(VmStarter.STOP_GRACE);
            } else if (entry.record().runtime() != null) {
                stopAdoptedChv(entry.record().runtime());
            }
        } catch (RuntimeException e) {
            LOG.log(WARNING, "stopping cloud-hypervisor of " + layout.sandboxId() + " failed: " + e.getMessage());
        }
        if (live.shares() != null) {
            try {
                live.shares().stop();
            } catch (RuntimeException e) {
                LOG.log(WARNING, "stopping virtiofsd of " + layout.sandboxId() + " failed: " + e.getMessage());
            }
        }
    }

    /** A CHV this daemon did not start (adopted after a restart): ask it to exit, then make sure. */
    private static void stopAdoptedChv(VmRuntime runtime) {
        try (var client = new dev.ateom.chv.ChvClient(Path.of(runtime.apiSocket()), dev.ateom.chv.ChvTimeouts.all(Duration.ofSeconds(3)))) {
            client.shutdownVmm();
        } catch (RuntimeException e) {
            LOG.log(WARNING, "vmm.shutdown of adopted cloud-hypervisor " + runtime.chvPid() + " failed: " + e.getMessage());
        }
        ProcessLeftovers.killChv(runtime);
    }

    private void killLeftovers(SandboxRecord record) {
        if (record.runtime() == null) return;
        ProcessLeftovers.kill(virtiofsd, record.runtime());
    }

    private boolean isVmRunning(SandboxEntry entry, SandboxLayout layout) {
        try {
            return chvClient(entry, layout).info().state() == dev.ateom.chv.VmState.Running;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private dev.ateom.chv.ChvClient chvClient(SandboxEntry entry, SandboxLayout layout) {
        LiveVm live = entry.live();
        if (live != null && live.chv() != null) return live.chv().client();
        VmRuntime runtime = entry.record().runtime();
        if (runtime == null) throw new IllegalStateException("sandbox " + layout.sandboxId() + " has no VM");
        return new dev.ateom.chv.ChvClient(Path.of(runtime.apiSocket()));
    }

    private static void closeQuietly(AutoCloseable closeable, String what) {
        if (closeable == null) return;
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.log(WARNING, "closing " + what + " failed: " + e);
        }
    }

    // ------------------------------------------------------------------ transitions

    private void transition(SandboxEntry entry, SandboxState state, String operation) {
        SandboxRecord updated = entry.record().withState(state).withOperation(operation, entry.record().lastTimingsMs());
        store.save(updated);
        entry.record(updated);
    }

    private OperationResult finish(SandboxEntry entry, SandboxState state, String operation, StepTimer timer, String snapshotId) {
        Map<String, Long> timings = timer.timings();
        SandboxRecord updated = entry.record().withState(state).withOperation(operation, timings);
        if (state != SandboxState.RUNNING) updated = updated.withRuntime(null);
        store.save(updated);
        entry.record(updated);
        metrics.record(operation, true, timer.elapsedSeconds());
        LOG.log(INFO, operation + " of sandbox " + updated.id() + " done in " + timings.get("total") + " ms " + timings);
        return new OperationResult(updated, snapshotId, timings);
    }

    private ApiException fail(SandboxEntry entry, String operation, StepTimer timer, Rollback rollback, RuntimeException cause,
                              String snapshotId) {
        rollback.run(cause);
        teardown(entry, SandboxLayout.of(config, entry.record().id()));
        String reason = operation + " failed: " + describe(cause);
        SandboxRecord failed = entry.record().failed(reason).withOperation(operation, timer.timings()).withRuntime(null);
        store.save(failed);
        entry.record(failed);
        metrics.record(operation, false, timer.elapsedSeconds());
        LOG.log(WARNING, "sandbox " + failed.id() + " " + reason, cause);
        if (cause instanceof ApiException api && api.status() < 500) return api;
        return new ApiException(statusOf(cause), operation + "-failed", "Sandbox " + operation + " failed", reason, failed.id(),
                SandboxState.FAILED.name(), cause);
    }

    private static ApiException operationFailed(SandboxRecord record, String operation, SandboxState state, RuntimeException cause,
                                                String consequence) {
        if (cause instanceof ApiException api && api.status() < 500) return api;
        String detail = operation + " failed: " + describe(cause) + "; " + consequence;
        LOG.log(WARNING, "sandbox " + record.id() + " " + detail, cause);
        return new ApiException(statusOf(cause), operation + "-failed", "Sandbox " + operation + " failed", detail, record.id(),
                state.name(), cause);
    }

    private static int statusOf(RuntimeException cause) {
        if (cause instanceof ApiException api) return api.status();
        return 500;
    }

    /** The messages of the cause chain, outermost first, so a problem says why and not only what. */
    static String describe(Throwable e) {
        List<String> parts = new ArrayList<>();
        for (Throwable t = e; t != null && parts.size() < 6; t = t.getCause()) {
            String message = t instanceof ChvException chv && !chv.chain().isEmpty()
                    ? "cloud-hypervisor: " + String.join(": ", chv.chain())
                    // file system errors carry only a path as message: the class says what happened
                    : t instanceof java.nio.file.FileSystemException || t.getMessage() == null ? t.toString() : t.getMessage();
            if (!parts.contains(message)) parts.add(message);
            if (t.getCause() == t) break;
        }
        return String.join(": ", parts);
    }

    private SandboxEntry entry(String id) {
        SandboxEntry entry = sandboxes.get(id);
        if (entry == null) throw ApiException.notFound("Sandbox", id);
        return entry;
    }

    private static void requireState(SandboxEntry entry, SandboxState.Operation operation, String verb) {
        SandboxRecord r = entry.record();
        if (!r.state().allows(operation)) {
            throw ApiException.conflict(r.id(), r.state().name(), "cannot " + verb + " sandbox " + r.id() + " in state " + r.state());
        }
    }

    private void requireHypervisor() {
        if (!tools.ready()) {
            throw new ApiException(503, "host-tools-unavailable", "A host tool sandboxes need is not available",
                    String.join(" ", tools.problems()));
        }
    }

    private static String generateId() {
        byte[] random = new byte[5];
        ThreadLocalRandom.current().nextBytes(random);
        return "sbx-" + HexFormat.of().formatHex(random);
    }

    // ------------------------------------------------------------------ recovery

    /**
     * Brings records in line with what is really running, once at start: RUNNING sandboxes whose CHV still
     * answers are adopted; everything else that was in the middle of something is cleaned and settled.
     */
    public void recover() {
        for (SandboxRecord record : store.loadAll()) {
            try (var log = LogContext.with("sandbox", record.id())) {
                SandboxEntry entry = new SandboxEntry(record);
                sandboxes.put(record.id(), entry);
                new SandboxRecovery(this, entry).run();
            } catch (RuntimeException e) {
                LOG.log(WARNING, "recovery of sandbox " + record.id() + " failed: " + e.getMessage(), e);
            }
        }
    }

    // package-private hooks for SandboxRecovery
    DaemonConfig config() { return config; }

    SandboxStore store() { return store; }

    SnapshotCatalog snapshots() { return snapshots; }

    VirtiofsdLauncher virtiofsd() { return virtiofsd; }

    SystemInfoVolumes systemInfo() { return systemInfo; }

    void settle(SandboxEntry entry, SandboxRecord record) {
        store.save(record);
        entry.record(record);
    }

    void forget(String id) { sandboxes.remove(id); }

    @Override
    public void close() {
        if (config.childrenDieWithDaemon()) {
            // The VMs die with this process: suspend them first so that their memory and data survive the stop.
            suspendAllRunning(SHUTDOWN_SUSPEND_LIMIT);
        }
        for (SandboxEntry entry : sandboxes.values()) {
            LiveVm live = entry.live();
            if (live != null) closeQuietly(live.sync(), "system-info sync of " + entry.record().id());
        }
    }

    /** Suspends every RUNNING sandbox in parallel, waiting at most {@code limit}; failures are logged, not thrown. */
    private void suspendAllRunning(Duration limit) {
        List<String> running = sandboxes.values().stream().map(SandboxEntry::record)
                .filter(r -> r.state() == SandboxState.RUNNING).map(SandboxRecord::id).toList();
        if (running.isEmpty()) return;
        LOG.log(INFO, "daemon stopping: suspending " + running.size() + " running sandbox(es) " + running);
        try (var executor = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            List<java.util.concurrent.Future<?>> suspends = running.stream().<java.util.concurrent.Future<?>>map(id -> executor.submit(() -> {
                try (var log = LogContext.with("sandbox", id)) {
                    suspend(id);
                } catch (RuntimeException e) {
                    LOG.log(WARNING, "suspend of " + id + " at daemon stop failed: " + describe(e));
                }
            })).toList();
            long deadline = System.nanoTime() + limit.toNanos();
            for (var suspend : suspends) {
                try {
                    suspend.get(Math.max(0, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    LOG.log(WARNING, "suspending at daemon stop takes longer than " + limit + "; stopping anyway");
                    executor.shutdownNow();
                    return;
                } catch (java.util.concurrent.ExecutionException e) {
                    LOG.log(WARNING, "suspend at daemon stop failed: " + e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
