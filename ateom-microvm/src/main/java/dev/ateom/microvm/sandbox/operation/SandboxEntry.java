package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.BusyException;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.SandboxRecord;

import java.util.concurrent.locks.ReentrantLock;

/**
 * One sandbox in the daemon: its latest persisted record, its live handles, and the lock that serialises
 * operations on it (different sandboxes never wait for each other). Only {@link Transitions} replaces the record.
 */
public final class SandboxEntry {
    private final ReentrantLock lock = new ReentrantLock();
    private volatile SandboxRecord record;
    private LiveVm live;

    public SandboxEntry(SandboxRecord record) { this.record = record; }

    public SandboxRecord record() { return record; }

    void record(SandboxRecord newRecord) { this.record = newRecord; }

    LiveVm live() { return live; }

    void live(LiveVm newLive) { this.live = newLive; }

    /** Takes the lock for one operation, or refuses when another operation holds it. */
    public Lock acquire(Operation operation) {
        return acquire(operation.wireName());
    }

    /** {@link #acquire(Operation)} for a change that is not an operation; {@code what} says what it is in words. */
    public Lock acquire(String what) {
        if (!lock.tryLock()) {
            SandboxRecord r = record;
            throw new BusyException(r.id(), r.state(), what);
        }
        return lock::unlock;
    }

    /** The held lock of one operation; closing releases it. */
    public interface Lock extends AutoCloseable {
        @Override
        void close();
    }
}
