package dev.ateom.store;

import java.util.Optional;

/**
 * How far a push is. Bytes are plain (uncompressed) except {@code bytesUploaded}, which is what went over the wire.
 *
 * @param totalBytes        apparent size of the snapshot's files (memory holes included)
 * @param doneBytes         bytes of the files finished: chunks uploaded or already stored, and holes
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
