package dev.ateom.snapshot;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Keeps a snapshot's {@code memory-ranges} sparse: punches holes over every all-zero page of its
 * data extents (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE), so content and apparent size stay the
 * same while the zero pages stop taking disk. Needed because CHV writes every page densely after an
 * OnDemand restore (see chv-samples/ondemand-restore.md).
 */
public final class MemoryRangesCompactor {
    public static final int PAGE_SIZE = 4096;
    private static final int CHUNK = 1 << 20;
    private static final byte[] ZERO_PAGE = new byte[PAGE_SIZE];

    private MemoryRangesCompactor() {
    }

    public record Result(DiskUsage before, DiskUsage after, long punchedBytes) {
    }

    public static Result punchZeroPages(Path file) throws IOException {
        DiskUsage before = DiskUsage.of(file);
        long punched = 0;
        try (NativeFile nativeFile = NativeFile.openReadWrite(file);
             FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocate(CHUNK);
            for (Extent extent : nativeFile.dataExtents()) {
                long runStart = -1; // start of the current run of zero pages, -1 when none
                for (long chunkStart = extent.offset(); chunkStart < extent.end(); chunkStart += CHUNK) {
                    int length = (int) Math.min(CHUNK, extent.end() - chunkStart);
                    readFully(channel, buffer, chunkStart, length, file);
                    byte[] bytes = buffer.array();
                    for (int pageOffset = 0; pageOffset < length; pageOffset += PAGE_SIZE) {
                        int pageLength = Math.min(PAGE_SIZE, length - pageOffset);
                        boolean zero = Arrays.mismatch(bytes, pageOffset, pageOffset + pageLength, ZERO_PAGE, 0, pageLength) < 0;
                        long pagePosition = chunkStart + pageOffset;
                        if (zero && runStart < 0) {
                            runStart = pagePosition;
                        } else if (!zero && runStart >= 0) {
                            nativeFile.punchHole(runStart, pagePosition - runStart);
                            punched += pagePosition - runStart;
                            runStart = -1;
                        }
                    }
                }
                if (runStart >= 0) {
                    nativeFile.punchHole(runStart, extent.end() - runStart);
                    punched += extent.end() - runStart;
                }
            }
        }
        return new Result(before, DiskUsage.of(file), punched);
    }

    static void readFully(FileChannel channel, ByteBuffer buffer, long position, int length, Path file) throws IOException {
        buffer.clear().limit(length);
        while (buffer.hasRemaining()) {
            int read = channel.read(buffer, position + buffer.position());
            if (read < 0) {
                throw new IOException(file + " ended at " + (position + buffer.position()) + " inside a data extent");
            }
        }
    }
}
