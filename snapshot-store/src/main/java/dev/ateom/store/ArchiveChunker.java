package dev.ateom.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/** Cuts a file into content-defined chunks ({@link FastCdc}), reading it once from start to end. */
final class ArchiveChunker {
    private ArchiveChunker() {
    }

    static void chunk(Path file, ChunkSink sink) throws IOException {
        byte[] buffer = new byte[2 * FastCdc.MAX_SIZE];
        int start = 0;
        int end = 0;
        long offset = 0;
        boolean eof = false;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (true) {
                if (!eof && end - start < FastCdc.MAX_SIZE) {
                    System.arraycopy(buffer, start, buffer, 0, end - start);
                    end -= start;
                    start = 0;
                    ByteBuffer view = ByteBuffer.wrap(buffer);
                    while (end < buffer.length) {
                        int read = channel.read(view.limit(buffer.length).position(end));
                        if (read < 0) {
                            eof = true;
                            break;
                        }
                        end += read;
                    }
                }
                int available = end - start;
                if (available == 0) {
                    return;
                }
                int length = FastCdc.cut(buffer, start, available);
                sink.data(new PlainChunk(offset, Arrays.copyOfRange(buffer, start, start + length), length));
                start += length;
                offset += length;
            }
        }
    }
}
