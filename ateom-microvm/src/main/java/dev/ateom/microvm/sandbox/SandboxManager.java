package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.HostTools;
import dev.ateom.microvm.PrivateDirs;
import dev.ateom.microvm.config.DaemonConfig;
import dev.ateom.microvm.events.EventLog;
import dev.ateom.microvm.logging.LogContext;
import dev.ateom.microvm.sandbox.operation.AdoptOperation;
import dev.ateom.microvm.sandbox.operation.CheckpointOperation;
import dev.ateom.microvm.sandbox.operation.CloneOperation;
import dev.ateom.microvm.sandbox.operation.CreateOperation;
import dev.ateom.microvm.sandbox.operation.DaemonStop;
import dev.ateom.microvm.sandbox.operation.DeleteOperation;
import dev.ateom.microvm.sandbox.operation.EgressChange;
import dev.ateom.microvm.sandbox.operation.IdleTimeouts;
import dev.ateom.microvm.sandbox.operation.OperationContext;
import dev.ateom.microvm.sandbox.operation.Recovery;
import dev.ateom.microvm.sandbox.operation.ResumeOperation;
import dev.ateom.microvm.sandbox.operation.SandboxEntry;
import dev.ateom.microvm.sandbox.operation.SuspendOperation;
import dev.ateom.microvm.sandbox.operation.Transitions;
import dev.ateom.microvm.sandbox.operation.VmStarter;
import dev.ateom.microvm.systeminfo.spec.ActorIdentity;
import dev.ateom.microvm.systeminfo.spec.SpecViolation;
import dev.ateom.microvm.timing.OperationMetrics;
import dev.ateom.microvm.timing.OperationProgress;
import dev.ateom.snapshot.Manifest;
import dev.ateom.microvm.vm.VmmPool;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The sandboxes of this daemon (docs/DESIGN.md, Lifecycle): the registry, one lock per sandbox, the state checks,
 * and dispatch to one class per operation ({@code operation/}), each of which persists every transition
 * before acting on it, so a crash at any point is recoverable ({@link Recovery} at start).
 */
public final class SandboxManager implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SandboxManager.class.getName());
    /** How long a push after a suspend waits for an operation holding the sandbox before it fails (and may be retried). */
    private static final Duration PUSH_LOCK_WAIT = Duration.ofSeconds(60);

    private final OperationContext context;
    private final HostTools tools;
    private final NewSandboxAdmission admission;
    private final Map<String, SandboxEntry> sandboxes = new ConcurrentHashMap<>();
    private final EventLog events = new EventLog(EventLog.DEFAULT_RING_SIZE, EventLog.DEFAULT_QUEUE_SIZE);
    private Consumer<String> afterSuspend = snapshotId -> { };
    private LeaseKeeper leases = new LeaseKeeper(SandboxLeases.NONE);
    /** Bounds the restores a fork runs at once (each restore reads a whole memory image and starts four processes). */
    private final Semaphore restoreSlots;
    private final VmmPool pool;
    private final IdleTimeouts idleTimeouts;

    public SandboxManager(DaemonConfig config, SandboxStore store, SnapshotCatalog snapshots,
                          SystemInfoVolumes systemInfo, GuestProbe probe, HostTools tools, SandboxNetworks networks,
                          PrometheusRegistry registry) {
        OperationMetrics metrics = new OperationMetrics(registry, this::countByState, () -> orphanDirs().size());
        // the pool fills only when every tool is there (startVmmPool), which the background probe of virtiofsd tells later
        this.pool = VmmPool.start(config.runDir(), tools.hypervisor().resolved(),
                config.childrenDieWithDaemon() ? config.vmmPool() : 0, registry);
        this.context = new OperationContext(config, store, new VmStarter(config, snapshots, tools, pool), tools, snapshots,
                systemInfo, probe, metrics, new Transitions(store, metrics, events), networks);
        this.tools = tools;
        this.admission = new NewSandboxAdmission(HostPathPolicy.of(config), snapshots, networks, config.idleMinimum());
        this.restoreSlots = new Semaphore(config.maxParallelRestores(), true);
        this.idleTimeouts = new IdleTimeouts(context, sandboxes::values, this::idleAction);
    }

    // ------------------------------------------------------------------ queries

    public List<SandboxRecord> list() {
        return sandboxes.values().stream().map(SandboxEntry::record).sorted(Comparator.comparing(SandboxRecord::id)).toList();
    }

    public SandboxRecord get(String id) { return entry(id).record(); }

    public SnapshotCatalog snapshotCatalog() { return context.snapshots(); }

    /** Every state change and finished operation, for the events stream. */
    public EventLog events() { return events; }

    /** Whether a snapshot is the one a suspended sandbox would resume from (deleting it would strand the sandbox). */
    public boolean isLatestOfSuspended(String snapshotId) {
        return sandboxes.values().stream().map(SandboxEntry::record)
                .anyMatch(r -> snapshotId.equals(r.latestSnapshotId())
                        && (r.state() == SandboxState.SUSPENDED || r.state() == SandboxState.RESUMING));
    }

    /** Directories of the state dir no sandbox owns; they block their id until an operator removes them. */
    public List<Path> orphanDirs() { return context.store().orphanDirs(sandboxes.keySet()); }

    private Map<String, Long> countByState() {
        Map<String, Long> counts = new TreeMap<>();
        for (SandboxState s : SandboxState.values()) counts.put(s.name(), 0L);
        sandboxes.values().forEach(e -> counts.merge(e.record().state().name(), 1L, Long::sum));
        return counts;
    }

    // ------------------------------------------------------------------ operations

    /** Where sandboxes take leases (the snapshot store); by default adopting is refused. Called before {@link #recover}. */
    public void useLeases(SandboxLeases leases) {
        this.leases.close(); // the default's: nothing queued
        this.leases = new LeaseKeeper(leases);
    }

    /**
     * Takes over a sandbox from a snapshot another host pushed: same id, uid and identity, resumed on this host. The
     * snapshot is pulled if it is not here; the sandbox's lease is taken first, so two hosts never run it (the resume
     * that follows finds it held by this host already).
     */
    public OperationResult adopt(String snapshotId, RestoreOptions options) {
        requireHypervisor();
        boolean pulledNow = context.snapshots().ensureLocal(snapshotId, options.allowCpuMismatch(), new PullFor.Adopt(this::requireNoSandbox))
                .isPresent();
        String id;
        try {
            id = registerAdopted(snapshotId);
        } catch (RuntimeException refused) {
            if (pulledNow) removePulledSnapshot(snapshotId, refused);
            throw refused;
        }
        LOG.log(INFO, "adopted sandbox " + id + " from snapshot " + snapshotId + "; resuming it on this host");
        return resume(id, options);
    }

    /** An adopt is refused, before anything is pulled, when a sandbox of the snapshot's id is here already. */
    private void requireNoSandbox(String id) {
        SandboxEntry present = sandboxes.get(id);
        if (present != null) throw new AlreadyExistsException(id, present.record().state());
    }

    /** The adopted sandbox's lease, directories and SUSPENDED record; returns its id. On failure nothing of it is left. */
    private String registerAdopted(String snapshotId) {
        SnapshotCatalog.SnapshotHandle handle = context.snapshots().open(snapshotId);
        Manifest.SourceSandbox source = handle.snapshot().manifest().source();
        String id = source.sandboxId();
        requireNoSandbox(id);
        leases.acquire(id);
        SandboxEntry entry = new SandboxEntry(SandboxRecord.adopted(id, handle.sandboxSpec(),
                new ActorIdentity(source.name(), source.namespace(), source.uid()), snapshotId));
        try {
            SandboxEntry existing = sandboxes.putIfAbsent(id, entry);
            if (existing != null) throw new AlreadyExistsException(id, existing.record().state());
            try (var lock = entry.acquire(Operation.RESUME); var log = LogContext.with("sandbox", id)) {
                if (Files.exists(context.store().sandboxDir(id), LinkOption.NOFOLLOW_LINKS)) throw AlreadyExistsException.leftoverDirectory(id);
                new AdoptOperation(context).prepare(entry);
            }
        } catch (RuntimeException e) {
            sandboxes.remove(id, entry);
            // an adopt of the same sandbox on this host won the race: the lease (one per host) is the winner's now
            if (!sandboxes.containsKey(id)) leases.release(id);
            throw e;
        }
        return id;
    }

    /**
     * A refused adopt (lease held, leases unavailable, id taken) leaves no snapshot it pulled behind, unless a sandbox
     * of this host uses it by now (a concurrent adopt or clone of the same snapshot). A snapshot that was here before
     * the request is never touched: the caller only comes here for one it pulled.
     */
    private void removePulledSnapshot(String snapshotId, RuntimeException refusal) {
        boolean inUse = sandboxes.values().stream().map(SandboxEntry::record)
                .anyMatch(r -> snapshotId.equals(r.latestSnapshotId()) || snapshotId.equals(r.sourceSnapshotId()));
        if (inUse) return;
        try {
            context.snapshots().deleteIfPresent(snapshotId);
            LOG.log(INFO, "adopt from snapshot " + snapshotId + " refused (" + refusal.getMessage() + "): removed the snapshot it pulled");
        } catch (RuntimeException e) {
            refusal.addSuppressed(e);
            LOG.log(WARNING, "adopt from snapshot " + snapshotId + " refused; the snapshot it pulled could not be removed: " + e.getMessage());
        }
    }

    /** Called with the snapshot id after every successful suspend (push-on-suspend); must return at once. */
    public void afterSuspend(Consumer<String> action) { this.afterSuspend = action; }

    /**
     * Before a push of one of a sandbox's snapshots sends anything ({@code POST /v1/snapshots/{id}/push}): the sandbox
     * may exist elsewhere from then on, so its record says so first (durably: a crash mid-push errs on the safe side),
     * and one that runs here takes its lease first (it may have started without one while the store could not be
     * asked), so no other host adopts the pushed snapshot while it runs here. Refused (nothing pushed) when the
     * lease cannot be had or another operation holds the sandbox. No sandbox of that id here: nothing to do.
     */
    public void beforePush(String sandboxId) {
        markInStore(sandboxId, entry -> entry.acquire("push"));
    }

    /**
     * A push after a suspend ({@code --push-on-suspend}), just before its snapshot becomes visible in the store: as
     * {@link #beforePush}, but only now (a push that never reached the store marks nothing, so a store unreachable
     * since start does not make this host's sandboxes need a lease) and waiting (bounded) for an operation that holds
     * the sandbox, e.g. the resume that followed the suspend, rather than failing the push at once.
     */
    public void beforeVisibleAfterSuspend(String sandboxId) {
        markInStore(sandboxId, entry -> entry.acquireWithin("push", PUSH_LOCK_WAIT));
    }

    /** Under the lock {@code lockOf} takes: marks the sandbox in the store, and one that runs here takes its lease. */
    private void markInStore(String sandboxId, Function<SandboxEntry, SandboxEntry.Lock> lockOf) {
        SandboxEntry entry = sandboxes.get(sandboxId);
        if (entry == null) return;
        try (var lock = lockOf.apply(entry); var log = LogContext.with("sandbox", sandboxId)) {
            if (sandboxes.get(sandboxId) != entry || entry.record().state() == SandboxState.DELETING) return; // deleted meanwhile
            context.transitions().markInStore(entry);
            if (entry.record().state() == SandboxState.RUNNING) leases.holdBeforePush(sandboxId);
        }
    }

    /** Create, or clone when the request names a snapshot: a new sandbox, RUNNING when this returns. */
    public OperationResult create(SandboxSpec request) { return create(request, RestoreOptions.DEFAULT); }

    /** As {@link #create(SandboxSpec)}; a clone's snapshot that is not on this host is pulled from the store first. */
    public OperationResult create(SandboxSpec request, RestoreOptions options) {
        admission.checkRequest(request);
        requireHypervisor();
        NewSandboxAdmission.Plan plan = admission.plan(request, request.id() != null ? request.id() : generateId(), options,
                taken -> Optional.ofNullable(sandboxes.get(taken)).map(e -> e.record().state()).orElse(null));
        String id = plan.id();
        ActorIdentity identity = new ActorIdentity(plan.spec().identity().name(), plan.spec().identity().namespace(), UUID.randomUUID().toString());
        SandboxEntry entry = new SandboxEntry(SandboxRecord.creating(id, plan.spec(), identity,
                plan.source() == null ? null : plan.source().id(), plan.operation()));
        SandboxEntry existing = sandboxes.putIfAbsent(id, entry);
        if (existing != null) throw new AlreadyExistsException(id, existing.record().state());
        try (var lock = entry.acquire(plan.operation()); var log = LogContext.with("sandbox", id)) {
            if (Files.exists(context.store().sandboxDir(id), LinkOption.NOFOLLOW_LINKS)) {
                sandboxes.remove(id, entry);
                throw AlreadyExistsException.leftoverDirectory(id);
            }
            OperationProgress.current().admitted(id);
            entry.claiming(leases.claim(entry.record(), plan.operation()));
            try {
                return plan.source() == null ? new CreateOperation(context).run(entry)
                        : new CloneOperation(context, plan.source(), plan.pulled()).run(entry);
            } finally {
                leases.follow(entry);
            }
        } finally {
            // only a sandbox whose record is on disk exists: a create that could not even persist FAILED leaves nothing
            if (!context.store().hasRecord(id)) sandboxes.remove(id, entry);
        }
    }

    /** Replaces a networked sandbox's egress policy: in force at once when RUNNING, from the next resume when SUSPENDED. */
    public SandboxRecord replaceEgress(String id, EgressSpec egress) {
        List<SpecViolation> violations = SandboxNetworks.checkEgress(egress, "egress");
        if (!violations.isEmpty()) throw new InvalidSpecException(violations);
        SandboxEntry entry = entry(id);
        try (var lock = entry.acquire(EgressChange.WHAT); var log = LogContext.with("sandbox", id)) {
            if (!entry.record().spec().hasNetwork()) {
                throw new InvalidSpecException(List.of(new SpecViolation("network", "sandbox " + id + " was created without a network")));
            }
            return new EgressChange(context).run(entry, egress);
        }
    }

    public OperationResult suspend(String id) { return suspend(id, SnapshotTags.NONE); }

    /** Suspend, the snapshot named and labelled as {@code tags} says (refused before anything is paused if it cannot be). */
    public OperationResult suspend(String id, SnapshotTags tags) {
        requireValid(tags);
        OperationResult result = runOn(id, Operation.SUSPEND,
                entry -> followingLease(entry, () -> withName(entry, tags, () -> new SuspendOperation(context, tags).run(entry))));
        afterSuspend.accept(result.snapshotId());
        return result;
    }

    public OperationResult resume(String id) { return resume(id, RestoreOptions.DEFAULT); }

    /** Resume; a latest snapshot that is not on this host (deleted here after a push) is pulled from the store first. */
    public OperationResult resume(String id, RestoreOptions options) {
        return runOn(id, Operation.RESUME, entry -> {
            entry.claiming(leases.claim(entry.record(), Operation.RESUME));
            OperationProgress.current().admitted(id);
            return followingLease(entry, () -> new ResumeOperation(context, options).run(entry));
        });
    }

    /** A snapshot of a running sandbox that keeps running; the guest is paused only for the snapshot and the archive. */
    public OperationResult checkpoint(String id) { return checkpoint(id, SnapshotTags.NONE); }

    /** Checkpoint, the snapshot named and labelled as {@code tags} says (refused before anything is paused if it cannot be). */
    public OperationResult checkpoint(String id, SnapshotTags tags) {
        requireValid(tags);
        return runOn(id, Operation.CHECKPOINT, entry -> followingLease(entry,
                () -> withName(entry, tags, () -> new CheckpointOperation(context, tags).run(entry))));
    }

    private static void requireValid(SnapshotTags tags) {
        List<SpecViolation> violations = tags.violations();
        if (!violations.isEmpty()) throw new InvalidSpecException(violations);
    }

    /** Runs an operation, then (under the same lock) gives the lease back if the sandbox no longer runs here. */
    private OperationResult followingLease(SandboxEntry entry, Supplier<OperationResult> operation) {
        try {
            return operation.get();
        } finally {
            leases.follow(entry);
        }
    }

    /** Runs a snapshotting operation holding its snapshot's name, so no other snapshot can take it meanwhile. */
    private OperationResult withName(SandboxEntry entry, SnapshotTags tags, Supplier<OperationResult> operation) {
        try (var name = context.snapshots().reserveName(tags.name(), entry.record().id(), entry.record().state())) {
            OperationProgress.current().admitted(entry.record().id()); // ?async=true answers 202 from here
            return operation.get();
        }
    }

    /**
     * N clones of one sandbox: one checkpoint when it runs (its latest snapshot when it is suspended), then the clones
     * restored in parallel, at most {@code max-parallel-restores} at a time. Each clone succeeds or fails on its own;
     * the answer lists every one. Refused (nothing made) when the request is invalid or the source cannot be forked.
     */
    public ForkResult fork(String id, ForkRequest request) {
        List<SpecViolation> violations = request.violations();
        if (!violations.isEmpty()) throw new InvalidSpecException(violations);
        SandboxRecord source = get(id);
        requireHypervisor();
        return new ForkOperation(restoreSlots, this::checkpoint, this::create, SandboxManager::generateId).run(source, request);
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
            sandboxes.remove(id);
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
        SandboxEntry entry = entry(id);
        try (var lock = entry.acquire(operation); var log = LogContext.with("sandbox", id)) {
            SandboxRecord record = entry.record();
            if (!operation.allowedIn(record.state())) throw new InvalidStateException(id, record.state(), operation);
            if (operation != Operation.DELETE) requireHypervisor();
            return run.apply(entry);
        }
    }

    private SandboxEntry entry(String id) {
        SandboxEntry entry = sandboxes.get(id);
        if (entry == null) throw NotFoundException.sandbox(id);
        return entry;
    }

    private void requireHypervisor() {
        if (!tools.ready()) throw new HostToolsUnavailableException(tools.problems());
    }

    private static String generateId() {
        byte[] random = new byte[5];
        ThreadLocalRandom.current().nextBytes(random);
        return "sbx-" + HexFormat.of().formatHex(random);
    }

    // ------------------------------------------------------------------ start and stop

    /**
     * Brings records in line with what is really running, once at start: RUNNING sandboxes whose CHV still
     * answers are adopted; everything else that was in the middle of something is cleaned and settled.
     */
    public void recover() {
        Recovery recovery = new Recovery(context);
        List<SandboxRecord> records = context.store().loadAll();
        List<SandboxEntry> settled = new ArrayList<>();
        // the slots of sandboxes that may still run are left alone; every other slot of the daemon's is removed
        context.networks().open(SandboxNetworks.ownedBy(records));
        for (SandboxRecord record : records) {
            try (var log = LogContext.with("sandbox", record.id())) {
                SandboxEntry entry = new SandboxEntry(record);
                sandboxes.put(record.id(), entry);
                if (!recovery.run(entry)) sandboxes.remove(record.id());
                else if (record.state() != SandboxState.SUSPENDED && record.state() != SandboxState.FAILED) settled.add(entry);
            } catch (RuntimeException e) {
                LOG.log(WARNING, "recovery of sandbox " + record.id() + " failed: " + e.getMessage(), e);
            }
        }
        context.networks().reclaimUnadopted();
        leases.afterRecovery(settled); // in the background: running ones keep their lease, the others give it back
        for (String id : sandboxes.keySet()) PrivateDirs.ensure(context.store().sandboxDir(id));
        for (Path orphan : orphanDirs()) {
            LOG.log(WARNING, "orphan sandbox directory " + orphan + ": no sandbox record owns it (unreadable or missing "
                    + "sandbox.json); it is left for an operator to inspect and remove, and its id cannot be used until then");
        }
        // the adopted sandboxes' deadlines are in their records: one already past is acted on at the first tick
        idleTimeouts.start();
    }

    /**
     * Called once the API answers: the warm VMM pool starts filling (not before, so it does not slow the start), as
     * soon as virtiofsd's probe found every tool there.
     */
    public void startVmmPool() {
        tools.afterVirtiofsdProbe(() -> {
            if (tools.ready()) pool.startFilling();
        });
    }

    @Override
    public void close() {
        idleTimeouts.close(); // first: no idle action races the suspends of the stop
        DaemonStop.run(sandboxes.values(), context.config().childrenDieWithDaemon(), this::suspend);
        leases.close(); // the suspends' give-backs, before the store closes
        pool.close();
    }
}
