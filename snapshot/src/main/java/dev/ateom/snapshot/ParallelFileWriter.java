package dev.ateom.snapshot;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes small files on a few threads while one thread reads the archive: creating a file, writing
 * it and setting its attributes is kernel work, which a second core does in parallel. Content in
 * flight is bounded, so memory stays constant whatever the archive holds.
 */
final class ParallelFileWriter implements AutoCloseable {
    static final int MAX_FILE_BYTES = 1 << 20;
    private static final int THREADS = 3;
    private static final int BUDGET_KIB = 64 * 1024;
    private static final AtomicInteger POOL_NUMBER = new AtomicInteger();

    /** One file's creation, run on a writer thread. */
    @FunctionalInterface
    interface FileWrite {
        void run() throws IOException;
    }

    private final ExecutorService pool;
    private final Semaphore budget = new Semaphore(BUDGET_KIB);
    private final Map<String, Future<?>> pending = new HashMap<>();
    private final AtomicReference<IOException> failure = new AtomicReference<>();

    ParallelFileWriter() {
        int pool = POOL_NUMBER.incrementAndGet();
        AtomicInteger thread = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(THREADS, runnable -> {
            Thread t = new Thread(runnable, "ateom-durable-extract-" + pool + "-" + thread.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Queues a write of at most {@link #MAX_FILE_BYTES}; blocks while too much content is in flight. */
    void submit(String name, int bytes, FileWrite write) throws IOException {
        rethrowFailure();
        int permits = Math.max(1, Math.min(BUDGET_KIB, bytes >> 10));
        try {
            budget.acquire(permits);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while extracting " + name);
        }
        pending.put(name, pool.submit(() -> {
            try {
                write.run();
            } catch (IOException | RuntimeException e) {
                failure.compareAndSet(null, e instanceof IOException io ? io : new IOException("writing " + name + " failed", e));
            } finally {
                budget.release(permits);
            }
        }));
    }

    /** Waits until the file queued under {@code name} (if any) is written: a hard link to it comes next. */
    void awaitFile(String name) throws IOException {
        Future<?> write = pending.get(name);
        if (write != null) {
            await(write, name);
        }
        rethrowFailure();
    }

    /** Waits for every queued write; the first failure is thrown. */
    void awaitAll() throws IOException {
        for (Map.Entry<String, Future<?>> write : pending.entrySet()) {
            await(write.getValue(), write.getKey());
        }
        rethrowFailure();
    }

    /** Stops the writers and waits for them, so nothing writes into a tree that is about to be deleted. */
    @Override
    public void close() throws IOException {
        pool.shutdownNow();
        try {
            if (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
                throw new IOException("extraction writer threads did not stop within a minute");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while stopping extraction writers");
        }
    }

    private static void await(Future<?> write, String name) throws IOException {
        try {
            write.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for " + name);
        } catch (ExecutionException e) {
            throw new IOException("writing " + name + " failed", e.getCause());
        }
    }

    private void rethrowFailure() throws IOException {
        IOException first = failure.get();
        if (first != null) {
            throw first;
        }
    }
}
