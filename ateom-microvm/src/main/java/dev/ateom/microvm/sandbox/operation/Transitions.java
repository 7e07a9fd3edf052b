package dev.ateom.microvm.sandbox.operation;

import dev.ateom.chv.ChvException;
import dev.ateom.microvm.events.EventLog;
import dev.ateom.microvm.events.SandboxEvent;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.OperationFailedException;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.SandboxException;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.sandbox.SandboxStore;
import dev.ateom.microvm.sandbox.SandboxStore.Durability;
import dev.ateom.microvm.sandbox.VmRuntime;
import dev.ateom.microvm.timing.OperationMetrics;
import dev.ateom.microvm.timing.StepSpan;
import dev.ateom.microvm.timing.StepTimer;

import java.nio.file.FileSystemException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The one place a sandbox's record changes: persisted first, then published to its entry, so the daemon never
 * acts on a state a crash could forget (two exceptions: {@link #committed}, and a save {@link Durability#BESIDE},
 * which the sandbox's next save waits for; each says why). Finishing or failing an
 * operation also counts it, logs it and publishes it here: one event per state change and per finished operation.
 * Every operation's end state re-arms the idle deadline (an operation is use of the sandbox; see {@link IdleTimeouts}).
 */
public final class Transitions {
    private static final System.Logger LOG = System.getLogger(Transitions.class.getName());
    private final SandboxStore store;
    private final OperationMetrics metrics;
    private final EventLog events;
    private final Durability running;

    /**
     * @param childrenDieWithDaemon whether a daemon crash kills the VMs too: then a bring-up's RUNNING is saved beside
     *                              its answer ({@link #running})
     */
    public Transitions(SandboxStore store, OperationMetrics metrics, EventLog events, boolean childrenDieWithDaemon) {
        this.running = childrenDieWithDaemon && !SpeedBaseline.active() ? Durability.BESIDE : Durability.SYNCED_AFTER;
        this.store = store;
        this.metrics = metrics;
        this.events = events;
    }

    /** Persists {@code updated}, fsynced, and makes it the entry's record; a change of state is an event. */
    void apply(SandboxEntry entry, SandboxRecord updated) {
        apply(entry, updated, Durability.SYNCED);
    }

    /**
     * As {@link #apply(SandboxEntry, SandboxRecord)}, saved as durably as {@code durability} says: a restarted daemon
     * reads it either way (docs/decisions.md, "Resume and clone at the hypervisor's speed", says which saves fsync).
     */
    void apply(SandboxEntry entry, SandboxRecord updated, Durability durability) {
        // on the entry's monitor: a suspend's teardown thread also writes the record (tornDown), beside a resume's
        synchronized (entry) {
            SandboxRecord before = entry.record();
            store.save(updated, SpeedBaseline.active() ? Durability.SYNCED : durability);
            entry.record(updated);
            if (before.state() != updated.state()) {
                events.publish(SandboxEvent.stateChanged(updated.id(), before.state(), updated.state(), updated.lastOperation()));
            }
        }
    }

    /**
     * The sandbox may exist elsewhere from now on (a snapshot of it is about to go to the store): persisted before
     * that happens, under the sandbox's lock, so a crash in between errs on the side of requiring its lease.
     */
    public void markInStore(SandboxEntry entry) {
        synchronized (entry) { // read and write as one: a suspend's teardown thread may drop the runtime meanwhile
            if (entry.record().inStore()) return;
            apply(entry, entry.record().markedInStore());
        }
        LOG.log(INFO, "sandbox " + entry.record().id() + " is in the snapshot store from now on: with leases enforced it runs "
                + "only with its lease");
    }

    /**
     * A new sandbox (create or clone) is persisted, CREATING, before anything of it is made; fsynced right after (a
     * host crash kills every VM anyway; the fsynced save is the one with the runtime, before the VM runs).
     */
    void created(SandboxEntry entry) {
        SandboxRecord record = entry.record();
        apply(entry, record, Durability.SYNCED_AFTER);
        events.publish(SandboxEvent.stateChanged(record.id(), null, record.state(), record.lastOperation()));
        LOG.log(INFO, record.lastOperation().wireName() + " sandbox " + record.id() + " as " + record.identity().namespace() + "/"
                + record.identity().name() + (record.sourceSnapshotId() != null ? " from snapshot " + record.sourceSnapshotId() : ""));
    }

    /** The operation starts: the sandbox enters its transitional state, keeping the last timings until new ones exist. */
    void begin(SandboxEntry entry, SandboxState state, Operation operation) {
        begin(entry, state, operation, Durability.SYNCED);
    }

    /** As {@link #begin(SandboxEntry, SandboxState, Operation)}, saved as durably as {@code durability} says. */
    void begin(SandboxEntry entry, SandboxState state, Operation operation, Durability durability) {
        apply(entry, entry.record().withState(state).withOperation(operation, entry.record().lastTimingsMs()), durability);
    }

    /**
     * A suspend committed {@code snapshotId}. Only the entry learns it now; the disk learns it with the end state.
     * Until then the record on disk stays SUSPENDING without it, which is how recovery tells a snapshot this
     * suspend committed (in the store, not yet in the record) from the sandbox's earlier ones.
     */
    void committed(SandboxEntry entry, String snapshotId) {
        entry.record(entry.record().withSnapshot(snapshotId));
    }

    /** The operation succeeded: its end state with the step timings; a sandbox that is not running has no runtime. */
    OperationResult finish(SandboxEntry entry, SandboxState state, Operation operation, StepTimer timer, String snapshotId) {
        return finish(entry, state, operation, timer, snapshotId, state == SandboxState.RUNNING, Durability.SYNCED);
    }

    /**
     * A bring-up (create, clone, resume) succeeded: RUNNING. When children die with the daemon, saved beside the answer
     * ({@link Durability#BESIDE}: the sandbox's next save waits for it): a daemon crash before it lands kills the VM
     * too, and the record on disk (CREATING, or RESUMING with the runtime, fsynced before the guest ran) recovers as
     * the VM being gone does: a create or clone FAILED, a resume SUSPENDED on its snapshot (the durable dir laid again
     * from it, as its marker is gone), where RUNNING would have been FAILED. Otherwise renamed into place before the
     * answer and fsynced right after (a restarted daemon must find RUNNING to adopt the VM that outlived it; only a host
     * crash, which kills the VM, can lose it).
     */
    OperationResult running(SandboxEntry entry, Operation operation, StepTimer timer) {
        return finish(entry, SandboxState.RUNNING, operation, timer, null, true, running);
    }

    /**
     * A suspend committed {@code snapshotId} and answers now, before its processes are stopped: SUSPENDED, with the
     * runtime kept until {@link #tornDown}, so a crash in between leaves recovery the processes to kill.
     */
    OperationResult suspendedBeforeTeardown(SandboxEntry entry, StepTimer timer, String snapshotId) {
        return finish(entry, SandboxState.SUSPENDED, Operation.SUSPEND, timer, snapshotId, true, Durability.SYNCED);
    }

    /**
     * The processes of a suspended sandbox, {@code stopped}, are gone: its record drops their runtime, unless a resume
     * that did not wait for the teardown has begun by now. That resume records its own runtime or, failing, drops the
     * old one itself; a save here would only cost it a contended, fsynced write of the record.
     */
    void tornDown(SandboxEntry entry, VmRuntime stopped) {
        synchronized (entry) {
            SandboxRecord record = entry.record();
            if (record.state() == SandboxState.SUSPENDED && stopped != null && stopped.equals(record.runtime())) {
                apply(entry, record.withRuntime(null));
            }
        }
    }

    /**
     * At DEBUG, when each step ran: which overlapped, and the gaps between them, where the operation's own time went
     * beyond what the steps' durations show (a step beside the others that started late waited for a thread).
     */
    private static void logTrace(Operation operation, String sandboxId, StepTimer timer) {
        if (!LOG.isLoggable(DEBUG)) return;
        LOG.log(DEBUG, operation.wireName() + " of sandbox " + sandboxId + ", its steps in µs from its start (step@start+duration, "
                + "~ beside the others): " + timer.trace().stream().map(StepSpan::toString).collect(Collectors.joining(" ")));
    }

    private OperationResult finish(SandboxEntry entry, SandboxState state, Operation operation, StepTimer timer, String snapshotId,
                                   boolean keepRuntime, Durability durability) {
        Map<String, Long> timings = timer.timings();
        SandboxRecord updated = entry.record().withState(state).withOperation(operation, timings).idleCountedFrom(Instant.now());
        if (!keepRuntime) updated = updated.withRuntime(null);
        apply(entry, updated, durability);
        metrics.record(operation.wireName(), true, timer.elapsedSeconds());
        events.publish(SandboxEvent.operationFinished(updated.id(), state, operation, timings, snapshotId, null));
        LOG.log(INFO, operation.wireName() + " of sandbox " + updated.id() + " done in " + timings.get("total") + " ms " + timings);
        logTrace(operation, updated.id(), timer);
        return new OperationResult(updated, snapshotId, timings);
    }

    /**
     * The operation failed and there is nothing to return to (create, clone): FAILED with the reason. When even
     * that cannot be persisted (a full disk), the sandbox's files are removed: no record, no sandbox.
     */
    SandboxException failed(SandboxEntry entry, Operation operation, StepTimer timer, RuntimeException cause) {
        String reason = operation.wireName() + " failed: " + describe(cause);
        SandboxRecord failed = entry.record().failed(reason).withOperation(operation, timer.timings()).withRuntime(null)
                .idleCountedFrom(Instant.now());
        metrics.record(operation.wireName(), false, timer.elapsedSeconds());
        events.publish(SandboxEvent.operationFinished(failed.id(), SandboxState.FAILED, operation, timer.timings(), null, reason));
        LOG.log(WARNING, "sandbox " + failed.id() + " " + reason, cause);
        logTrace(operation, failed.id(), timer);
        try {
            apply(entry, failed);
        } catch (RuntimeException persist) {
            LOG.log(WARNING, "sandbox " + failed.id() + " cannot be recorded as FAILED (" + describe(persist) + "); removing it");
            store.deleteAllQuietly(failed.id());
            return new OperationFailedException(operation, failed.id(), null, reason, cause);
        }
        if (cause instanceof SandboxException refused) return refused;
        return new OperationFailedException(operation, failed.id(), SandboxState.FAILED, reason, cause);
    }

    /** A create or clone whose spec turned out invalid while preparing: refused like a bad request, nothing kept. */
    SandboxException refused(SandboxEntry entry, Operation operation, StepTimer timer, SandboxException refusal) {
        metrics.record(operation.wireName(), false, timer.elapsedSeconds());
        LOG.log(INFO, "sandbox " + entry.record().id() + " refused: " + refusal.detail());
        store.deleteAllQuietly(entry.record().id());
        return refusal;
    }

    /**
     * The operation failed and the sandbox is back in {@code state} (a suspend rolled back to RUNNING, a resume to
     * SUSPENDED, a delete stays DELETING); {@code consequence} tells the client what that means.
     */
    SandboxException returnedTo(SandboxEntry entry, SandboxState state, Operation operation, StepTimer timer,
                                RuntimeException cause, String consequence) {
        SandboxRecord record = entry.record();
        SandboxRecord back = record.withState(state).withOperation(operation, record.lastTimingsMs()).idleCountedFrom(Instant.now());
        // a suspended sandbox has no processes; a running or half-deleted one keeps the record of its own
        apply(entry, state == SandboxState.SUSPENDED ? back.withRuntime(null) : back);
        metrics.record(operation.wireName(), false, timer.elapsedSeconds());
        String detail = operation.wireName() + " failed: " + describe(cause) + "; " + consequence;
        events.publish(SandboxEvent.operationFinished(record.id(), state, operation, timer.timings(), null, detail));
        logTrace(operation, record.id(), timer);
        if (cause instanceof SandboxException refused) return refused;
        LOG.log(WARNING, "sandbox " + record.id() + " " + detail, cause);
        return new OperationFailedException(operation, record.id(), state, detail, cause);
    }

    /** A delete finished: the record is gone from disk, so this is the sandbox's last event. */
    void deleted(SandboxEntry entry, StepTimer timer) {
        String id = entry.record().id();
        metrics.record(Operation.DELETE.wireName(), true, timer.elapsedSeconds());
        events.publish(SandboxEvent.operationFinished(id, null, Operation.DELETE, timer.timings(), null, null));
        events.publish(SandboxEvent.deleted(id));
        logTrace(Operation.DELETE, id, timer);
    }

    /** Recovery at start settled a sandbox: a sandbox that is not running has no processes, so no runtime either. */
    void settle(SandboxEntry entry, SandboxRecord settled) {
        // an adopted RUNNING sandbox keeps the idle deadline of its record: a restart does not reset the timeout
        SandboxRecord updated = settled.state() == SandboxState.RUNNING ? settled : settled.withRuntime(null).idleCountedFrom(Instant.now());
        apply(entry, updated);
        LOG.log(INFO, "recovered sandbox " + updated.id() + " as " + updated.state()
                + (updated.failureReason() != null ? ": " + updated.failureReason() : ""));
    }

    /** The sandbox was used at {@code lastUse} without an operation (its guest reported activity): its idle timeout counts from then. */
    void idleCountedFrom(SandboxEntry entry, Instant lastUse) {
        apply(entry, entry.record().idleCountedFrom(lastUse));
    }

    /** The idle timeout acts on the sandbox: an event, then the operation's own events. */
    void idleTimeoutActs(SandboxEntry entry, Operation action, String detail) {
        events.publish(SandboxEvent.idle(entry.record().id(), action, detail));
        LOG.log(INFO, "sandbox " + entry.record().id() + " idle: " + detail);
    }

    /** The idle timeout's action failed: an event says why; the sandbox is as the failed operation left it. */
    void idleActionFailed(SandboxEntry entry, Operation action, RuntimeException cause) {
        String detail = "the idle timeout's " + action.wireName() + " failed: " + describe(cause);
        events.publish(SandboxEvent.idle(entry.record().id(), action, detail));
        LOG.log(WARNING, "sandbox " + entry.record().id() + " " + detail, cause);
    }

    /** The messages of the cause chain, outermost first, so a problem says why and not only what. */
    static String describe(Throwable e) {
        List<String> parts = new ArrayList<>();
        for (Throwable t = e; t != null && parts.size() < 6; t = t.getCause()) {
            // CHV's own chain, after the call it answered (e.g. "cloud-hypervisor's vm.restore: Error from API: ...")
            String message = t instanceof ChvException chv && !chv.chain().isEmpty()
                    ? "cloud-hypervisor's " + chv.endpoint().substring(chv.endpoint().lastIndexOf('/') + 1) + ": "
                            + String.join(": ", chv.chain())
                    // file system errors carry only a path as message: the class says what happened
                    : t instanceof FileSystemException || t.getMessage() == null ? t.toString() : t.getMessage();
            if (!parts.contains(message)) parts.add(message);
            if (t.getCause() == t) break;
        }
        return String.join(": ", parts);
    }
}
