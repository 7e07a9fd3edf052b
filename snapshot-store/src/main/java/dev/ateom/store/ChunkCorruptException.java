package dev.ateom.store;

/** A chunk's stored bytes do not decompress to bytes with its hash. */
public final class ChunkCorruptException extends ChunkException {
    public ChunkCorruptException(ChunkHash chunk, String reason) {
        super(chunk, "chunk " + chunk + " is corrupt: " + reason);
    }
}
