package dev.ateom.store;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The counters of one running push; each change is reported to the listener as a {@link PushStatus}. */
final class PushProgress {
    private final String snapshotId;
    private final PushListener listener;
    private volatile TransferState state = TransferState.PENDING;
    private volatile String error;
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong done = new AtomicLong();
    private final AtomicLong uploaded = new AtomicLong();
    private final AtomicLong deduplicated = new AtomicLong();
    private final AtomicInteger chunksUploaded = new AtomicInteger();
    private final AtomicInteger chunksDeduplicated = new AtomicInteger();

    PushProgress(String snapshotId, PushListener listener) {
        this.snapshotId = snapshotId;
        this.listener = listener;
    }

    void start(long totalBytes) {
        total.set(totalBytes);
        state = TransferState.RUNNING;
        report();
    }

    void zeros(long plainBytes) {
        done.addAndGet(plainBytes);
        report();
    }

    void uploaded(long plainBytes, long compressedBytes) {
        uploaded.addAndGet(compressedBytes);
        chunksUploaded.incrementAndGet();
        done.addAndGet(plainBytes);
        report();
    }

    void deduplicated(long plainBytes) {
        deduplicated.addAndGet(plainBytes);
        chunksDeduplicated.incrementAndGet();
        done.addAndGet(plainBytes);
        report();
    }

    /** A chunk sent again because it vanished from the store before the manifest was written. */
    void reuploaded(long compressedBytes) {
        uploaded.addAndGet(compressedBytes);
        chunksUploaded.incrementAndGet();
        report();
    }

    PushStatus finish() {
        state = TransferState.DONE;
        return report();
    }

    PushStatus fail(Throwable cause) {
        error = cause.getMessage() == null ? cause.toString() : cause.getMessage();
        state = TransferState.FAILED;
        return report();
    }

    PushStatus status() {
        return new PushStatus(snapshotId, state, total.get(), done.get(), uploaded.get(), deduplicated.get(), chunksUploaded.get(),
                chunksDeduplicated.get(), Optional.ofNullable(error));
    }

    private PushStatus report() {
        PushStatus status = status();
        listener.onProgress(status);
        return status;
    }
}
