package dev.ateom.microvm.vm;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The bring-ups (create, clone, resume) running now, for background work that only serves later ones and so can
 * wait for them: the warm pool's refill starts its next VMM once none runs, rather than take the CPU from the
 * bring-up whose claim emptied the pool's place (a process start: a real CHV's few ms, the JVM-based stand-in's
 * hundreds). The wait is bounded by its caller, so a steady stream of bring-ups still gets the pool refilled.
 */
public final class BringUpsInFlight {
    private int running; // guarded by this

    /** A bring-up begins; it runs until the token is closed (a second close counts for nothing). */
    public Token begin() {
        synchronized (this) {
            running++;
        }
        return new Token();
    }

    /**
     * Waits until no bring-up runs, at most {@code max}.
     *
     * @return whether none runs (false: {@code max} passed first)
     */
    public synchronized boolean awaitNone(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (running > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) return false;
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    /** How many bring-ups run now. */
    public synchronized int running() { return running; }

    private synchronized void end() {
        running--;
        if (running == 0) notifyAll();
    }

    /** One bring-up running, until {@link #close}. */
    public final class Token implements AutoCloseable {
        private final AtomicBoolean closed = new AtomicBoolean();

        private Token() {}

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) end();
        }
    }
}
