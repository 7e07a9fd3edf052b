package dev.ateom.store;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs transfer tasks on a shared pool with at most {@code maxInFlight} of them queued or running (which bounds
 * the chunk buffers held), remembers the first failure, and never returns while one of its tasks still runs.
 */
final class BoundedTasks implements AutoCloseable {
    @FunctionalInterface
    interface IoTask {
        void run() throws IOException;
    }

    private final ExecutorService pool;
    private final int maxInFlight;
    private final Semaphore slots;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    BoundedTasks(ExecutorService pool, int maxInFlight) {
        this.pool = pool;
        this.maxInFlight = maxInFlight;
        this.slots = new Semaphore(maxInFlight);
    }

    /** Waits for a free slot and starts the task; throws the first failure of an earlier task instead, if any. */
    void submit(IoTask task) throws IOException {
        rethrowFailure();
        try {
            slots.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting to start a transfer");
        }
        try {
            pool.execute(() -> {
                try {
                    if (failure.get() == null) {
                        task.run();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    slots.release();
                }
            });
        } catch (RejectedExecutionException e) {
            slots.release();
            throw new IOException("the store is closed", e);
        }
    }

    /** Waits for every task; throws the first failure. */
    void awaitAll() throws IOException {
        slots.acquireUninterruptibly(maxInFlight);
        slots.release(maxInFlight);
        rethrowFailure();
    }

    /** Waits for running tasks without throwing (for failure paths). */
    @Override
    public void close() {
        slots.acquireUninterruptibly(maxInFlight);
        slots.release(maxInFlight);
    }

    private void rethrowFailure() throws IOException {
        Throwable e = failure.get();
        if (e == null) {
            return;
        }
        switch (e) {
            case IOException io -> throw io;
            case UncheckedIOException unchecked -> throw unchecked.getCause();
            case RuntimeException runtime -> throw runtime;
            case Error error -> throw error;
            default -> throw new IOException(e);
        }
    }
}
