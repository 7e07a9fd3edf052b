package dev.ateom.store;

import java.util.List;

/**
 * What a gc run found and did.
 *
 * @param removed          chunks deleted: referenced by no manifest and older than the grace
 * @param keptYoung        unreferenced chunks kept because they are younger than the grace (a push may be writing them)
 * @param missing          chunks some manifest references that are not in the store (damage: those snapshots cannot be pulled)
 */
public record GcReport(int manifests, int chunks, int referenced, List<RemovedChunk> removed, long bytesRemoved, int keptYoung,
                       long bytesKeptYoung, List<ChunkHash> missing) {
    public record RemovedChunk(ChunkHash hash, long bytes) {
    }
}
