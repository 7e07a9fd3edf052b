package dev.ateom.store;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The counters of one running push or pull, reported to a listener after every change. A chunk is either
 * <em>moved</em> (uploaded or downloaded: plain bytes done, compressed bytes on the wire) or <em>skipped</em>
 * (already in the store, or served by the chunk cache); holes only advance {@code done}.
 *
 * @param <S> the status record the listener gets ({@link PushStatus} or {@link PullStatus})
 */
final class TransferProgress<S> {
    /** Builds the status record from the counters. */
    @FunctionalInterface
    interface StatusFactory<S> {
        S status(TransferState state, long total, long done, long movedWireBytes, long skippedBytes, int chunksMoved, int chunksSkipped,
                 Optional<String> error);
    }

    private final StatusFactory<S> factory;
    private final Consumer<S> listener;
    private volatile TransferState state = TransferState.PENDING;
    private volatile String error;
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong done = new AtomicLong();
    private final AtomicLong movedWire = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicInteger chunksMoved = new AtomicInteger();
    private final AtomicInteger chunksSkipped = new AtomicInteger();

    TransferProgress(StatusFactory<S> factory, Consumer<S> listener) {
        this.factory = factory;
        this.listener = listener;
    }

    static TransferProgress<PushStatus> push(String snapshotId, PushListener listener) {
        return new TransferProgress<>((state, total, done, wire, skipped, moved, skippedChunks, error) ->
                new PushStatus(snapshotId, state, total, done, wire, skipped, moved, skippedChunks, error), listener::onProgress);
    }

    static TransferProgress<PullStatus> pull(String snapshotId, PullListener listener) {
        return new TransferProgress<>((state, total, done, wire, skipped, moved, skippedChunks, error) ->
                new PullStatus(snapshotId, state, total, done, wire, skipped, moved, skippedChunks, error), listener::onProgress);
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

    void moved(long plainBytes, long wireBytes) {
        movedWire.addAndGet(wireBytes);
        chunksMoved.incrementAndGet();
        done.addAndGet(plainBytes);
        report();
    }

    void skipped(long plainBytes) {
        skipped.addAndGet(plainBytes);
        chunksSkipped.incrementAndGet();
        done.addAndGet(plainBytes);
        report();
    }

    /** A chunk sent again (it vanished from the store before the manifest was written): wire bytes only. */
    void movedAgain(long wireBytes) {
        movedWire.addAndGet(wireBytes);
        chunksMoved.incrementAndGet();
        report();
    }

    S finish() {
        state = TransferState.DONE;
        return report();
    }

    S fail(Throwable cause) {
        error = cause.getMessage() == null ? cause.toString() : cause.getMessage();
        state = TransferState.FAILED;
        return report();
    }

    private S report() {
        S status = factory.status(state, total.get(), done.get(), movedWire.get(), skipped.get(), chunksMoved.get(), chunksSkipped.get(),
                Optional.ofNullable(error));
        listener.accept(status);
        return status;
    }
}
