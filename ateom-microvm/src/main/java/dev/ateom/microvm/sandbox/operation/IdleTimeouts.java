package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.logging.LogContext;
import dev.ateom.microvm.sandbox.BusyException;
import dev.ateom.microvm.sandbox.IdleSpec;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Runs the idle timeouts of the spec ({@code idle}): every tick it looks at each RUNNING sandbox that has one, counts
 * activity its guest reported ({@link GuestActivity}) as use, and runs the action of a sandbox whose deadline passed.
 * The deadline itself lives in the record: every operation's end state re-arms it ({@link Transitions}), so the
 * only writes here are for guest activity and for a RUNNING sandbox that has no deadline yet.
 *
 * <p>The action runs as a request would: under the sandbox's lock, through the manager's own suspend or delete (the
 * lock is re-entrant, so the deadline is checked again and the action taken with nothing in between). A busy sandbox
 * is left for the next tick (its operation re-arms the deadline anyway); a failed action is an event and a log line,
 * and the deadline counts again from the failure, so it is retried one timeout later, not at every tick.
 *
 * <p>Its thread runs from {@link #start} to {@link #close}; both may be called more than once (a state moved by
 * compare-and-set, as ZooKeeper's FileChangeWatcher does). Closing waits for an action in progress.
 */
public final class IdleTimeouts implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(IdleTimeouts.class.getName());
    private static final Duration MAX_TICK = Duration.ofSeconds(1);
    private static final long CLOSE_WAIT_MS = 60_000;

    private enum State { NEW, RUNNING, STOPPED }

    /** The manager's own operation for an idle action (suspend or delete), taking the sandbox's lock as a request does. */
    @FunctionalInterface
    public interface Action {
        void run(String sandboxId, Operation operation);
    }

    private final Supplier<Collection<SandboxEntry>> sandboxes;
    private final Transitions transitions;
    private final GuestActivity activity;
    private final Action action;
    private final Duration tick;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final Object wake = new Object();
    private volatile Thread thread;

    /** @param sandboxes the daemon's sandboxes, as they are at each tick */
    public IdleTimeouts(OperationContext context, Supplier<Collection<SandboxEntry>> sandboxes, Action action) {
        this.sandboxes = sandboxes;
        this.transitions = context.transitions();
        this.activity = new GuestActivity(context.probe());
        this.action = action;
        this.tick = tickFor(context.config().idleMinimum());
    }

    /** Half the shortest timeout a spec may ask for, at most a second: a deadline is acted on at most a tick late. */
    static Duration tickFor(Duration idleMinimum) {
        Duration half = idleMinimum.dividedBy(2);
        return half.compareTo(MAX_TICK) < 0 ? half : MAX_TICK;
    }

    /** Starts the scheduler's thread; a second call, or one after {@link #close}, does nothing. */
    public void start() {
        if (state.compareAndSet(State.NEW, State.RUNNING)) {
            thread = Thread.ofPlatform().daemon().name("ateom-idle-timeouts").start(this::run);
        }
    }

    /** Stops the thread, waiting for an action in progress to finish; idempotent. */
    @Override
    public void close() {
        State before = state.getAndSet(State.STOPPED);
        if (before != State.RUNNING) return;
        synchronized (wake) {
            wake.notifyAll();
        }
        Thread running = thread;
        try {
            running.join(CLOSE_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        while (awaitTick()) {
            Instant now = Instant.now();
            for (SandboxEntry entry : sandboxes.get()) {
                if (state.get() != State.RUNNING) return;
                String id = entry.record().id();
                try (var log = LogContext.with("sandbox", id)) {
                    check(entry, now);
                } catch (RuntimeException e) {
                    LOG.log(WARNING, "idle timeout of sandbox " + id + ": " + Transitions.describe(e), e);
                }
            }
        }
    }

    /** False once closed. */
    private boolean awaitTick() {
        synchronized (wake) {
            if (state.get() != State.RUNNING) return false;
            try {
                wake.wait(tick.toMillis());
            } catch (InterruptedException e) {
                return false;
            }
            return state.get() == State.RUNNING;
        }
    }

    private void check(SandboxEntry entry, Instant now) {
        SandboxRecord record = entry.record();
        IdleSpec idle = record.spec().idle();
        if (idle == null || record.state() != SandboxState.RUNNING) {
            activity.forget(record.id());
            return;
        }
        if (record.idleDeadline() == null || activity.reportedSince(record, now)) {
            countFrom(entry, now);
        } else if (!now.isBefore(record.idleDeadline())) {
            // one last look at the guest: activity since the last poll is use too
            if (activity.reportsNow(record)) {
                countFrom(entry, Instant.now());
            } else {
                act(entry, idle.operation());
            }
        }
    }

    /** The sandbox was used at {@code lastUse}; a busy sandbox's operation re-arms the deadline itself. */
    private void countFrom(SandboxEntry entry, Instant lastUse) {
        try (var lock = entry.acquire("count the idle timeout of")) {
            if (entry.record().state() == SandboxState.RUNNING) transitions.idleCountedFrom(entry, lastUse);
        } catch (BusyException e) {
            LOG.log(DEBUG, "sandbox " + entry.record().id() + " is busy; its operation re-arms the idle timeout");
        }
    }

    private void act(SandboxEntry entry, Operation operation) {
        try (var lock = entry.acquire("run the idle timeout of")) {
            SandboxRecord record = entry.record();
            // used in the meantime (an operation ran and re-armed the deadline, or it stopped running)
            if (record.state() != SandboxState.RUNNING || record.idleDeadline() == null || Instant.now().isBefore(record.idleDeadline())) {
                return;
            }
            transitions.idleTimeoutActs(entry, operation, "unused since " + record.idleDeadline().minusSeconds(record.spec().idle().afterSeconds())
                    + " (idle.afterSeconds " + record.spec().idle().afterSeconds() + "): " + operation.wireName());
            try {
                action.run(record.id(), operation);
            } catch (RuntimeException e) {
                transitions.idleActionFailed(entry, operation, e);
                if (entry.record().state() == SandboxState.RUNNING) transitions.idleCountedFrom(entry, Instant.now());
            }
        } catch (BusyException e) {
            LOG.log(INFO, "sandbox " + entry.record().id() + " is busy; its idle timeout acts once the operation is done, if it is still due");
        }
    }
}
