package dev.ateom.store;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The counters of one running pull; each change is reported to the listener as a {@link PullStatus}. */
final class PullProgress {
    private final String snapshotId;
    private final PullListener listener;
    private volatile TransferState state = TransferState.PENDING;
    private volatile String error;
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong done = new AtomicLong();
    private final AtomicLong downloaded = new AtomicLong();
    private final AtomicLong fromCache = new AtomicLong();
    private final AtomicInteger chunksDownloaded = new AtomicInteger();
    private final AtomicInteger chunksFromCache = new AtomicInteger();

    PullProgress(String snapshotId, PullListener listener) {
        this.snapshotId = snapshotId;
        this.listener = listener;
    }

    void start(long totalBytes) {
        total.set(totalBytes);
        state = TransferState.RUNNING;
        report();
    }

    void downloaded(long plainBytes, long compressedBytes) {
        downloaded.addAndGet(compressedBytes);
        chunksDownloaded.incrementAndGet();
        done.addAndGet(plainBytes);
        report();
    }

    void fromCache(long plainBytes) {
        fromCache.addAndGet(plainBytes);
        chunksFromCache.incrementAndGet();
        done.addAndGet(plainBytes);
        report();
    }

    PullStatus finish() {
        state = TransferState.DONE;
        return report();
    }

    PullStatus fail(Throwable cause) {
        error = cause.getMessage() == null ? cause.toString() : cause.getMessage();
        state = TransferState.FAILED;
        return report();
    }

    PullStatus status() {
        return new PullStatus(snapshotId, state, total.get(), done.get(), downloaded.get(), fromCache.get(), chunksDownloaded.get(),
                chunksFromCache.get(), Optional.ofNullable(error));
    }

    private PullStatus report() {
        PullStatus status = status();
        listener.onProgress(status);
        return status;
    }
}
