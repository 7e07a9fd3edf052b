package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.BusyException;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.SandboxRecord;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One sandbox in the daemon: its latest persisted record, its live handles, and the lock that serialises
 * operations on it (different sandboxes never wait for each other). Only {@link Transitions} replaces the record.
 * A suspend answers before its processes are stopped; the next operation on the sandbox waits for that stop when it
 * takes the lock (docs/decisions.md, "Suspend answers at commit").
 */
public final class SandboxEntry {
    private final ReentrantLock lock = new ReentrantLock();
    private volatile SandboxRecord record;
    private LiveVm live;
    /** The stop of the processes a suspend left running after its answer; complete when there is none. */
    private volatile CompletableFuture<Void> teardown = CompletableFuture.completedFuture(null);
    /** The part of that teardown a resume waits for: the old VM's processes, slot and restore dir gone (the record follows). */
    private volatile CompletableFuture<Void> vmGone = CompletableFuture.completedFuture(null);
    /** The lease the running operation is taking (create, clone, resume), awaited before its VM is created. */
    private volatile LeaseClaim lease = LeaseClaim.NONE;

    public SandboxEntry(SandboxRecord record) { this.record = record; }

    public SandboxRecord record() { return record; }

    void record(SandboxRecord newRecord) { this.record = newRecord; }

    LiveVm live() { return live; }

    void live(LiveVm newLive) { this.live = newLive; }

    /** Set by the operation's caller under the lock, before the operation runs; {@link LeaseClaim#NONE} after it. */
    public void claiming(LeaseClaim claim) { this.lease = claim; }

    LeaseClaim leaseClaim() { return lease; }

    void tearingDown(CompletableFuture<Void> vmGone, CompletableFuture<Void> pending) {
        this.vmGone = vmGone;
        this.teardown = pending;
    }

    /** Waits until the previous VM's processes, network slot and restore dir are gone (its record may not say so yet). */
    void awaitVmGone() { vmGone.join(); }

    /** Whether the previous VM of a suspend is still being stopped. */
    boolean vmGonePending() { return !vmGone.isDone(); }

    /** Waits until the processes a suspend stops after its answer are stopped (at once when none are). */
    public void awaitTeardown() { teardown.join(); }

    /** Whether a suspend's processes are still being stopped after its answer. */
    public boolean teardownPending() { return !teardown.isDone(); }

    /**
     * Takes the lock for one operation, or refuses when another operation holds it; then waits for a suspend's
     * teardown still running, so the operation finds the sandbox's processes stopped and its run dir clean. A resume
     * does not wait here: its bring-up waits only where it needs the old VM gone (BringUp), so the two overlap.
     */
    public Lock acquire(Operation operation) {
        return acquire(operation.wireName(), operation != Operation.RESUME);
    }

    /** {@link #acquire(Operation)} for a change that is not an operation; {@code what} says what it is in words. */
    public Lock acquire(String what) {
        return acquire(what, true);
    }

    /**
     * For work in the background that must not fail because an operation is running (a push after a suspend): waits up
     * to {@code wait} for the lock, then refuses; does not wait for a teardown.
     */
    public Lock acquireWithin(String what, Duration wait) {
        try {
            if (!lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                SandboxRecord r = record;
                throw new BusyException(r.id(), r.state(), what);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BusyException(record.id(), record.state(), what);
        }
        return lock::unlock;
    }

    private Lock acquire(String what, boolean afterTeardown) {
        if (!lock.tryLock()) {
            SandboxRecord r = record;
            throw new BusyException(r.id(), r.state(), what);
        }
        if (afterTeardown) awaitTeardown();
        return lock::unlock;
    }

    /** The held lock of one operation; closing releases it. */
    public interface Lock extends AutoCloseable {
        @Override
        void close();
    }
}
