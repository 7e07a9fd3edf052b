package dev.ateom.store;

import dev.ateom.snapshot.DataExtents;
import dev.ateom.snapshot.Extent;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

/**
 * Cuts guest memory into fixed 2 MiB chunks aligned to the file (the last one may be shorter). A chunk no data
 * extent touches is a hole without being read; a chunk that reads as all zeros is a hole too.
 */
final class MemoryChunker {
    static final int CHUNK_SIZE = 2 * 1024 * 1024;
    /** The name of this chunking in remote manifests. */
    static final String NAME = "fixed-2m";
    private static final byte[] ZEROS = new byte[CHUNK_SIZE];

    private MemoryChunker() {
    }

    static void chunk(Path file, ChunkSink sink) throws IOException {
        long size = Files.size(file);
        List<Extent> extents = DataExtents.of(file);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            int next = 0; // first extent that may reach the current chunk
            for (long offset = 0; offset < size; offset += CHUNK_SIZE) {
                int length = (int) Math.min(CHUNK_SIZE, size - offset);
                while (next < extents.size() && extents.get(next).end() <= offset) {
                    next++;
                }
                boolean touched = next < extents.size() && extents.get(next).offset() < offset + length;
                if (!touched) {
                    sink.hole(offset, length);
                    continue;
                }
                byte[] data = new byte[length];
                readFully(channel, data, offset, file);
                if (isZero(data)) {
                    sink.hole(offset, length);
                } else {
                    sink.data(new PlainChunk(offset, data, length));
                }
            }
        }
    }

    private static void readFully(FileChannel channel, byte[] data, long position, Path file) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(data);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) {
                throw new EOFException(file + " ended at " + (position + buffer.position()) + " while it was being chunked");
            }
        }
    }

    private static boolean isZero(byte[] data) {
        return Arrays.mismatch(data, 0, data.length, ZEROS, 0, data.length) < 0;
    }
}
