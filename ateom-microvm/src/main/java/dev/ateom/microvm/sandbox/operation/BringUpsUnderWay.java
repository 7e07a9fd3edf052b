package dev.ateom.microvm.sandbox.operation;

import java.time.Duration;

/**
 * How many bring-ups (create, clone, resume) are under way, and a wait until none is. Work that only may be needed (a
 * running sandbox's standby virtiofsd, {@link StandbyShares}) waits for it, as the warm pool's refill waits for a
 * hand-over: a burst of creates shared its two cores with the standby starts of its first sandboxes (20 creates at
 * once 1.04-1.10× the path before issue 27 with them, 1.00× without).
 */
final class BringUpsUnderWay {
    private int count;

    /** A bring-up under way until the returned mark is closed (once; closing it again does nothing). */
    Mark begin() {
        synchronized (this) {
            count++;
        }
        return new Mark(this);
    }

    /** Until none is under way, for at most {@code max}: whether none is. */
    synchronized boolean awaitNone(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (count > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) return false;
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    private synchronized void end() {
        count--;
        if (count == 0) notifyAll();
    }

    /** One bring-up's part of the count. */
    static final class Mark implements AutoCloseable {
        private BringUpsUnderWay owner;

        private Mark(BringUpsUnderWay owner) { this.owner = owner; }

        @Override
        public synchronized void close() {
            if (owner == null) return;
            owner.end();
            owner = null;
        }
    }
}
