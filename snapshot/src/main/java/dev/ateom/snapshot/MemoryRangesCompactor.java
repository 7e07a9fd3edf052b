package dev.ateom.snapshot;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Keeps a snapshot's {@code memory-ranges} sparse: punches holes over every all-zero page of its
 * data extents (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE), so content and apparent size stay the
 * same while the zero pages stop taking disk. Needed because CHV writes every page densely after an
 * OnDemand restore (see chv-samples/ondemand-restore.md).
 *
 * <p>The same pass computes the file's {@link MemoryPageDigest} (it looks at every page anyway, and a zero page is
 * left out of the digest whether it is punched or not), so a commit reads memory-ranges once, not twice. Starting
 * the write-back of each finished chunk (sync_file_range) was tried and dropped: the pass then waited for the disk
 * (punching a page under write-back waits for it), and the commit took longer.
 */
public final class MemoryRangesCompactor {
    public static final int PAGE_SIZE = 4096;
    private static final int CHUNK = 1 << 20;
    private static final byte[] ZERO_PAGE = new byte[PAGE_SIZE];

    private MemoryRangesCompactor() {
    }

    /** @param digest the file's {@link MemoryPageDigest}, from the bytes this pass read */
    public record Result(DiskUsage before, DiskUsage after, long punchedBytes, String digest) {
    }

    public static Result punchZeroPages(Path file) throws IOException {
        DiskUsage before = DiskUsage.of(file);
        MessageDigest digest = Sha256.newDigest();
        ByteBuffer index = ByteBuffer.allocate(Long.BYTES);
        long punched = 0;
        try (NativeFile nativeFile = NativeFile.openReadWrite(file);
             FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            List<Extent> extents = nativeFile.dataExtents();
            ByteBuffer buffer = ByteBuffer.allocate(ReadBufferSize.forExtents(extents, CHUNK));
            for (Extent extent : extents) {
                // pages as MemoryPageDigest counts them: extents start on block boundaries, aligned down anyway
                long start = extent.offset() - extent.offset() % PAGE_SIZE;
                long runStart = -1; // start of the current run of zero pages, -1 when none
                // in steps of the buffer: a chunk, or less when every extent fits in less
                for (long chunkStart = start; chunkStart < extent.end(); chunkStart += buffer.capacity()) {
                    int length = (int) Math.min(buffer.capacity(), extent.end() - chunkStart);
                    readFully(channel, buffer, chunkStart, length, file);
                    byte[] bytes = buffer.array();
                    for (int pageOffset = 0; pageOffset < length; pageOffset += PAGE_SIZE) {
                        int pageLength = Math.min(PAGE_SIZE, length - pageOffset);
                        boolean zero = Arrays.mismatch(bytes, pageOffset, pageOffset + pageLength, ZERO_PAGE, 0, pageLength) < 0;
                        long pagePosition = chunkStart + pageOffset;
                        if (zero) {
                            if (runStart < 0) runStart = pagePosition;
                            continue;
                        }
                        if (runStart >= 0) {
                            nativeFile.punchHole(runStart, pagePosition - runStart);
                            punched += pagePosition - runStart;
                            runStart = -1;
                        }
                        digest.update(index.clear().putLong(pagePosition / PAGE_SIZE).array());
                        digest.update(bytes, pageOffset, pageLength);
                    }
                }
                if (runStart >= 0) {
                    nativeFile.punchHole(runStart, extent.end() - runStart);
                    punched += extent.end() - runStart;
                }
            }
        }
        return new Result(before, DiskUsage.of(file), punched, HexFormat.of().formatHex(digest.digest()));
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
