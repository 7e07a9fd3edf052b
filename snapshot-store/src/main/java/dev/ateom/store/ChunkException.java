package dev.ateom.store;

/** A chunk of a remote snapshot cannot be used; {@link #chunk()} names it. */
public abstract sealed class ChunkException extends StoreException permits ChunkCorruptException, ChunkMissingException {
    private final ChunkHash chunk;

    ChunkException(ChunkHash chunk, String message) {
        super(message);
        this.chunk = chunk;
    }

    public ChunkHash chunk() {
        return chunk;
    }
}
