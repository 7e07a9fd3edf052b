package dev.ateom.store;

import java.util.Optional;

/**
 * How far a push is. Bytes are plain (uncompressed) except {@code bytesUploaded}, which is what went over the wire.
 *
 * @param totalBytes        plain bytes the push reads (memory chunks that hold data, and the other files whole)
 * @param doneBytes         plain bytes of chunks finished (uploaded, already stored, or found all-zero)
 * @param bytesUploaded     compressed bytes sent
 * @param bytesDeduplicated plain bytes of chunks the store already had (or that repeat within the snapshot)
 * @param error             why it failed, when {@code state} is FAILED
 */
public record PushStatus(String snapshotId, TransferState state, long totalBytes, long doneBytes, long bytesUploaded,
                         long bytesDeduplicated, int chunksUploaded, int chunksDeduplicated, Optional<String> error) {
    public static PushStatus pending(String snapshotId) {
        return new PushStatus(snapshotId, TransferState.PENDING, 0, 0, 0, 0, 0, 0, Optional.empty());
    }
}
