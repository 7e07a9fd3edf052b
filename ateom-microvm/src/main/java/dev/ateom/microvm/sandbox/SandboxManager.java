package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.HostTools;
import dev.ateom.microvm.config.DaemonConfig;
import dev.ateom.microvm.events.EventLog;
import dev.ateom.microvm.logging.LogContext;
import dev.ateom.microvm.sandbox.operation.Adoption;
import dev.ateom.microvm.sandbox.operation.CheckpointOperation;
import dev.ateom.microvm.sandbox.operation.DaemonStop;
import dev.ateom.microvm.sandbox.operation.DeleteOperation;
import dev.ateom.microvm.sandbox.operation.EgressChange;
import dev.ateom.microvm.sandbox.operation.ForkOperation;
import dev.ateom.microvm.sandbox.operation.IdleTimeouts;
import dev.ateom.microvm.sandbox.operation.LeaseKeeper;
import dev.ateom.microvm.sandbox.operation.NewSandboxRun;
import dev.ateom.microvm.sandbox.operation.NextCloneAhead;
import dev.ateom.microvm.sandbox.operation.OperationContext;
import dev.ateom.microvm.sandbox.operation.ResumeOperation;
import dev.ateom.microvm.sandbox.operation.SandboxEntry;
import dev.ateom.microvm.sandbox.operation.SandboxRegistry;
import dev.ateom.microvm.sandbox.operation.SnapshotNameHold;
import dev.ateom.microvm.sandbox.operation.StartupRecovery;
import dev.ateom.microvm.sandbox.operation.StoreMarking;
import dev.ateom.microvm.sandbox.operation.SuspendOperation;
import dev.ateom.microvm.sandbox.operation.Transitions;
import dev.ateom.microvm.sandbox.operation.VmStarter;
import dev.ateom.microvm.timing.OperationMetrics;
import dev.ateom.microvm.timing.OperationProgress;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The sandboxes of this daemon (docs/DESIGN.md, Lifecycle): the registry, one lock per sandbox, the state checks,
 * and dispatch to one class per operation ({@code operation/}), each of which persists every transition
 * before acting on it, so a crash at any point is recoverable ({@link StartupRecovery} at start).
 */
public final class SandboxManager implements AutoCloseable {
    private final OperationContext context;
    private final HostTools tools;
    private final NewSandboxAdmission admission;
    private final SandboxRegistry sandboxes = new SandboxRegistry();
    private final EventLog events = new EventLog(EventLog.DEFAULT_RING_SIZE, EventLog.DEFAULT_QUEUE_SIZE);
    private Consumer<String> afterSuspend = snapshotId -> { };
    private LeaseKeeper leases = new LeaseKeeper(SandboxLeases.NONE);
    /** Bounds the restores a fork runs at once (each restore reads a whole memory image and starts four processes). */
    private final Semaphore restoreSlots;
    private final IdleTimeouts idleTimeouts;

    public SandboxManager(DaemonConfig config, SandboxStore store, SnapshotCatalog snapshots, SnapshotWriter snapshotWriter,
                          SystemInfoVolumes systemInfo, GuestProbe probe, HostTools tools, SandboxNetworks networks,
                          PrometheusRegistry registry) {
        OperationMetrics metrics = new OperationMetrics(registry, sandboxes::countByState, () -> orphanDirs().size());
        // the pool fills only when every tool is there (startVmmPool), which the background probe of virtiofsd tells later
        this.context = new OperationContext(config, store, VmStarter.start(config, snapshots, tools, registry), tools, snapshots,
                snapshotWriter, systemInfo, probe, metrics, new Transitions(store, metrics, events, config.childrenDieWithDaemon()), networks);
        this.tools = tools;
        this.admission = new NewSandboxAdmission(HostPathPolicy.of(config), snapshots, networks, config.idleMinimum());
        this.restoreSlots = new Semaphore(config.maxParallelRestores(), true);
        this.idleTimeouts = new IdleTimeouts(context, sandboxes::entries, this::idleAction);
    }

    // ------------------------------------------------------------------ queries

    public List<SandboxRecord> list() { return sandboxes.records(); }

    public SandboxRecord get(String id) { return sandboxes.entry(id).record(); }

    public SnapshotCatalog snapshotCatalog() { return context.snapshots(); }

    /** Every state change and finished operation, for the events stream. */
    public EventLog events() { return events; }

    /** Whether a snapshot is the one a suspended sandbox would resume from (deleting it would strand the sandbox). */
    public boolean isLatestOfSuspended(String snapshotId) { return sandboxes.isLatestOfSuspended(snapshotId); }

    /** Directories of the state dir no sandbox owns; they block their id until an operator removes them. */
    public List<Path> orphanDirs() { return context.store().orphanDirs(sandboxes.ids()); }

    // ------------------------------------------------------------------ operations

    /** Where sandboxes take leases (the snapshot store); by default adopting is refused. Called before {@link #recover}. */
    public void useLeases(SandboxLeases leases) {
        this.leases.close(); // the default's: nothing queued
        this.leases = new LeaseKeeper(leases);
    }

    /**
     * Takes over a sandbox from a snapshot another host pushed: same id, uid and identity, resumed on this host
     * ({@link Adoption}); the resume finds its lease held by this host already.
     */
    public OperationResult adopt(String snapshotId, RestoreOptions options) {
        requireHypervisor();
        return resume(new Adoption(context, sandboxes, leases).admit(snapshotId, options), options);
    }

    /** Called with the snapshot id after every successful suspend (push-on-suspend); must return at once. */
    public void afterSuspend(Consumer<String> action) { this.afterSuspend = action; }

    /** Before a push of one of a sandbox's snapshots sends anything; see {@link StoreMarking#beforePush}. */
    public void beforePush(String sandboxId) { new StoreMarking(context, sandboxes, leases).beforePush(sandboxId); }

    /** A push after a suspend, just before its snapshot becomes visible; see {@link StoreMarking#beforeVisibleAfterSuspend}. */
    public void beforeVisibleAfterSuspend(String sandboxId) {
        new StoreMarking(context, sandboxes, leases).beforeVisibleAfterSuspend(sandboxId);
    }

    /** Create, or clone when the request names a snapshot: a new sandbox, RUNNING when this returns. */
    public OperationResult create(SandboxSpec request) { return create(request, RestoreOptions.DEFAULT); }

    /** As {@link #create(SandboxSpec)}; a clone's snapshot that is not on this host is pulled from the store first. */
    public OperationResult create(SandboxSpec request, RestoreOptions options) { return create(request, options, NextCloneAhead.MAKE); }

    private OperationResult create(SandboxSpec request, RestoreOptions options, NextCloneAhead nextClone) {
        admission.checkRequest(request);
        requireHypervisor();
        NewSandboxAdmission.Plan plan = admission.plan(request, request.id() != null ? request.id() : SandboxIds.generate(), options,
                sandboxes::stateOf);
        return new NewSandboxRun(context, sandboxes, leases).run(plan, nextClone);
    }

    /** Replaces a networked sandbox's egress policy: in force at once when RUNNING, from the next resume when SUSPENDED. */
    public SandboxRecord replaceEgress(String id, EgressSpec egress) {
        EgressChange.requireValid(egress);
        SandboxEntry entry = sandboxes.entry(id);
        try (var lock = entry.acquire(EgressChange.WHAT); var log = LogContext.with("sandbox", id)) {
            return new EgressChange(context).run(entry, egress);
        }
    }

    public OperationResult suspend(String id) { return suspend(id, SnapshotTags.NONE); }

    /** Suspend, the snapshot named and labelled as {@code tags} says (refused before anything is paused if it cannot be). */
    public OperationResult suspend(String id, SnapshotTags tags) {
        tags.requireValid();
        OperationResult result = runOn(id, Operation.SUSPEND, entry -> leases.following(entry,
                () -> SnapshotNameHold.holding(context, entry, tags, () -> new SuspendOperation(context, tags).run(entry))));
        afterSuspend.accept(result.snapshotId());
        return result;
    }

    public OperationResult resume(String id) { return resume(id, RestoreOptions.DEFAULT); }

    /** Resume; a latest snapshot that is not on this host (deleted here after a push) is pulled from the store first. */
    public OperationResult resume(String id, RestoreOptions options) {
        return runOn(id, Operation.RESUME, entry -> {
            entry.claiming(leases.claim(entry.record(), Operation.RESUME));
            OperationProgress.current().admitted(id);
            return leases.following(entry, () -> new ResumeOperation(context, options).run(entry));
        });
    }

    /** A snapshot of a running sandbox that keeps running; the guest is paused only for the snapshot and the archive. */
    public OperationResult checkpoint(String id) { return checkpoint(id, SnapshotTags.NONE); }

    /** Checkpoint, the snapshot named and labelled as {@code tags} says (refused before anything is paused if it cannot be). */
    public OperationResult checkpoint(String id, SnapshotTags tags) {
        tags.requireValid();
        return runOn(id, Operation.CHECKPOINT, entry -> leases.following(entry,
                () -> SnapshotNameHold.holding(context, entry, tags, () -> new CheckpointOperation(context, tags).run(entry))));
    }

    /**
     * N clones of one sandbox: one checkpoint when it runs (its latest snapshot when it is suspended), then the clones
     * restored in parallel, at most {@code max-parallel-restores} at a time. Each clone succeeds or fails on its own;
     * the answer lists every one. Refused (nothing made) when the request is invalid or the source cannot be forked.
     */
    public ForkResult fork(String id, ForkRequest request) {
        request.requireValid();
        SandboxRecord source = get(id);
        requireHypervisor();
        return new ForkOperation(restoreSlots, this::checkpoint, (spec, nextClone) -> create(spec, RestoreOptions.DEFAULT, nextClone),
                SandboxIds::generate).run(source, request);
    }

    /** One command line to a RUNNING sandbox's guest probe; its answer, or a problem when it gives none in time. */
    public ProbeResult probe(String id, ProbeRequest request) {
        try (var log = LogContext.with("sandbox", id)) {
            return new GuestCommand(context.probe()).run(get(id), request);
        }
    }

    /** Deletes in any state; {@code withSnapshots} also removes the sandbox's snapshots. */
    public void delete(String id, boolean withSnapshots) {
        runOn(id, Operation.DELETE, entry -> {
            new DeleteOperation(context).run(entry, withSnapshots);
            sandboxes.remove(entry);
            leases.release(id);
            return null;
        });
    }

    /** An idle timeout's action, by the same path as a request's; a deleted sandbox's snapshots are kept. */
    private void idleAction(String id, Operation operation) {
        if (operation == Operation.DELETE) {
            delete(id, false);
        } else {
            suspend(id);
        }
    }

    /** Under the sandbox's lock and log context, once its state allows {@code operation} and (but for delete) a VM can run. */
    private <T> T runOn(String id, Operation operation, Function<SandboxEntry, T> run) {
        SandboxEntry entry = sandboxes.entry(id);
        try (var lock = entry.acquire(operation); var log = LogContext.with("sandbox", id)) {
            SandboxRecord record = entry.record();
            if (!operation.allowedIn(record.state())) throw new InvalidStateException(id, record.state(), operation);
            if (operation != Operation.DELETE) requireHypervisor();
            return run.apply(entry);
        }
    }

    private void requireHypervisor() {
        if (!tools.ready()) throw new HostToolsUnavailableException(tools.problems());
    }

    // ------------------------------------------------------------------ start and stop

    /** Settles every persisted sandbox with what really runs ({@link StartupRecovery}), once at start; then idle timeouts run. */
    public void recover() {
        new StartupRecovery(context, sandboxes, leases).run();
        // the adopted sandboxes' deadlines are in their records: one already past is acted on at the first tick
        idleTimeouts.start();
    }

    /**
     * Called once the API answers: the warm VMM pool starts filling (not before, so it does not slow the start), as
     * soon as virtiofsd's probe found every tool there.
     */
    public void startVmmPool() {
        tools.afterVirtiofsdProbe(() -> {
            if (tools.ready()) context.vms().startPoolFilling();
        });
    }

    @Override
    public void close() {
        idleTimeouts.close(); // first: no idle action races the suspends of the stop
        DaemonStop.run(sandboxes.entries(), context.config().childrenDieWithDaemon(), this::suspend);
        leases.close(); // the suspends' give-backs, before the store closes
        context.vms().close(); // after the suspends: what their teardowns started ahead goes too
        context.store().awaitBesideSaves(); // a record saved beside an answer is on disk when the daemon has stopped
    }
}
