package dev.ateom.store;

/** A chunk a manifest references is not in the store. */
public final class ChunkMissingException extends ChunkException {
    public ChunkMissingException(ChunkHash chunk, String snapshotId) {
        super(chunk, "chunk " + chunk + " of snapshot " + snapshotId + " is missing from the store");
    }
}
