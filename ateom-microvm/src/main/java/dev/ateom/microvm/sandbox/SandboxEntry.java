package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.http.ApiException;

import java.util.concurrent.locks.ReentrantLock;

/**
 * One sandbox in the daemon: its latest persisted record, its live handles, and the lock that
 * serialises operations on it (different sandboxes never wait for each other).
 */
final class SandboxEntry {
    private final ReentrantLock lock = new ReentrantLock();
    private volatile SandboxRecord record;
    private LiveVm live;

    SandboxEntry(SandboxRecord record) { this.record = record; }

    SandboxRecord record() { return record; }

    void record(SandboxRecord newRecord) { this.record = newRecord; }

    LiveVm live() { return live; }

    void live(LiveVm newLive) { this.live = newLive; }

    /** Takes the lock for one operation, or answers 409 when another operation holds it. */
    Lock acquire(String operation) {
        if (!lock.tryLock()) {
            SandboxRecord r = record;
            throw ApiException.conflict(r.id(), r.state().name(),
                    "cannot " + operation + " sandbox " + r.id() + ": another operation is in progress (state " + r.state() + ")");
        }
        return lock::unlock;
    }

    interface Lock extends AutoCloseable {
        @Override
        void close();
    }
}
