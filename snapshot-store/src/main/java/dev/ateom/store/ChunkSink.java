package dev.ateom.store;

import java.io.IOException;

/** Receives the chunks of a file in file order. */
interface ChunkSink {
    void data(PlainChunk chunk) throws IOException;

    /** A range of zeros that is not stored (memory only). */
    void hole(long offset, long length) throws IOException;
}
