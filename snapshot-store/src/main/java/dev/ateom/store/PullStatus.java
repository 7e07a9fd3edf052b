package dev.ateom.store;

import java.util.Optional;

/**
 * How far a pull is. Bytes are plain (uncompressed) except {@code bytesDownloaded}.
 *
 * @param totalBytes      plain bytes of the distinct chunks the snapshot needs
 * @param doneBytes       plain bytes of those written into the staged snapshot
 * @param bytesDownloaded compressed bytes fetched from the store
 * @param bytesFromCache  plain bytes served by the local chunk cache
 */
public record PullStatus(String snapshotId, TransferState state, long totalBytes, long doneBytes, long bytesDownloaded,
                         long bytesFromCache, int chunksDownloaded, int chunksFromCache, Optional<String> error) {
}
