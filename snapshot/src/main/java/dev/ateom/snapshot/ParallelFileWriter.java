package dev.ateom.snapshot;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes files' content and attributes on a few threads while one thread reads the archive and creates
 * the files: that is kernel work, which a second core does in parallel. Content in
 * flight is bounded, and so are files in flight (each holds its descriptor until written); nothing is kept
 * per file, so memory and descriptors stay bounded whatever the archive holds.
 */
final class ParallelFileWriter implements AutoCloseable {
    static final int MAX_FILE_BYTES = 1 << 20;
    private static final int THREADS = 3;
    private static final int BUDGET_KIB = 64 * 1024;
    private static final int MAX_FILES_IN_FLIGHT = 512;
    private static final AtomicInteger POOL_NUMBER = new AtomicInteger();

    /** One file's creation, run on a writer thread. */
    @FunctionalInterface
    interface FileWrite {
        void run() throws IOException;
    }

    private final ExecutorService pool;
    private final Semaphore budget = new Semaphore(BUDGET_KIB);
    private final Semaphore files = new Semaphore(MAX_FILES_IN_FLIGHT);
    private final AtomicReference<IOException> failure = new AtomicReference<>();
    private volatile boolean closing;

    ParallelFileWriter() {
        int pool = POOL_NUMBER.incrementAndGet();
        AtomicInteger thread = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(THREADS, runnable -> {
            Thread t = new Thread(runnable, "ateom-durable-extract-" + pool + "-" + thread.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    void submit(String name, int bytes, FileWrite write) throws IOException {
        submit(name, bytes, write, () -> { });
    }

    /**
     * Queues a write holding {@code bytes} of content in memory (at most {@link #MAX_FILE_BYTES}; 0 for a
     * copy between files); blocks while too much content or too many files are in flight.
     * {@code always} runs after the write, and also when the write never runs (failure elsewhere,
     * close): it releases what the caller handed over (the file's descriptor).
     */
    void submit(String name, int bytes, FileWrite write, Runnable always) throws IOException {
        try {
            rethrowFailure();
        } catch (IOException e) {
            always.run();
            throw e;
        }
        int permits = Math.max(1, Math.min(BUDGET_KIB, bytes >> 10));
        try {
            files.acquire();
            try {
                budget.acquire(permits);
            } catch (InterruptedException e) {
                files.release();
                throw e;
            }
        } catch (InterruptedException e) {
            always.run();
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while extracting " + name);
        }
        pool.execute(() -> {
            try {
                if (!closing) {
                    write.run();
                }
            } catch (IOException | RuntimeException e) {
                failure.compareAndSet(null, e instanceof IOException io ? io : new IOException("writing " + name + " failed", e));
            } finally {
                always.run();
                budget.release(permits);
                files.release();
            }
        });
    }

    /**
     * Waits for every queued write; the first failure is thrown. Nothing is kept per file: a write
     * holds budget permits until it is done, so all permits free means nothing is in flight.
     */
    void awaitAll() throws IOException {
        try {
            budget.acquire(BUDGET_KIB);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the extraction writers");
        }
        budget.release(BUDGET_KIB);
        rethrowFailure();
    }

    /** Stops the writers and waits for them, so nothing writes into a tree that is about to be deleted. */
    @Override
    public void close() throws IOException {
        closing = true;
        pool.shutdownNow().forEach(Runnable::run); // writes that never started only release their descriptor
        try {
            if (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
                throw new IOException("extraction writer threads did not stop within a minute");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while stopping extraction writers");
        }
    }

    private void rethrowFailure() throws IOException {
        IOException first = failure.get();
        if (first != null) {
            throw first;
        }
    }
}
