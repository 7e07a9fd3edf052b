package dev.ateom.snapshot;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The digest of guest memory ({@code memory-ranges}): SHA-256 over every 4 KiB page that is not all zero,
 * each preceded by its page index as 8 big-endian bytes. A hole and a page of written zeros count the same,
 * so the digest does not depend on how sparse the file is, and computing it reads only the file's data
 * extents: a mostly empty 4 GiB guest costs what its few allocated pages cost, not 4 GiB of hashing.
 * A file whose size is not a multiple of the page size has a short last page, hashed as it is.
 */
public final class MemoryPageDigest {
    /** How the manifest names this digest ({@link Manifest.FileEntry#digest()}). */
    public static final String ALGORITHM = "sha256-nonzero-pages";
    private static final int PAGE = MemoryRangesCompactor.PAGE_SIZE;
    private static final int CHUNK = 1 << 20;
    private static final byte[] ZERO_PAGE = new byte[PAGE];

    private MemoryPageDigest() {
    }

    public static String of(Path file) throws IOException {
        MessageDigest digest = Sha256.newDigest();
        ByteBuffer index = ByteBuffer.allocate(Long.BYTES);
        try (NativeFile nativeFile = NativeFile.openReadOnly(file);
             FileChannel channel = SafeOpen.regularFile(file)) {
            List<Extent> extents = nativeFile.dataExtents();
            ByteBuffer buffer = ByteBuffer.allocate(ReadBufferSize.forExtents(extents, CHUNK));
            for (Extent extent : extents) {
                // extents start on block boundaries, which are page multiples on every filesystem we use;
                // align down anyway so a page is always hashed whole
                long start = extent.offset() - extent.offset() % PAGE;
                // in steps of the buffer: a chunk, or less when every extent fits in less
                for (long chunkStart = start; chunkStart < extent.end(); chunkStart += buffer.capacity()) {
                    int length = (int) Math.min(buffer.capacity(), extent.end() - chunkStart);
                    read(channel, buffer, chunkStart, length, file);
                    byte[] bytes = buffer.array();
                    int filled = buffer.position();
                    for (int offset = 0; offset < filled; offset += PAGE) {
                        int pageLength = Math.min(PAGE, filled - offset);
                        if (Arrays.mismatch(bytes, offset, offset + pageLength, ZERO_PAGE, 0, pageLength) < 0) continue;
                        digest.update(index.clear().putLong((chunkStart + offset) / PAGE).array());
                        digest.update(bytes, offset, pageLength);
                    }
                }
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /**
     * The same digest computed from a file's bytes fed in order from offset 0: data with {@link #update}, holes
     * with {@link #zeros}; pieces need not be page-aligned (a pull digests each chunk as it places it, instead of
     * reading the assembled file again).
     */
    public static final class Incremental {
        private final MessageDigest digest = Sha256.newDigest();
        private final ByteBuffer index = ByteBuffer.allocate(Long.BYTES);
        private final byte[] partial = new byte[PAGE];
        private int filled;
        private long pageIndex;

        public void update(byte[] data, int from, int length) {
            int at = from;
            int left = length;
            while (left > 0) {
                if (filled == 0 && left >= PAGE) {
                    page(data, at, PAGE);
                    at += PAGE;
                    left -= PAGE;
                    continue;
                }
                int n = Math.min(PAGE - filled, left);
                System.arraycopy(data, at, partial, filled, n);
                filled += n;
                at += n;
                left -= n;
                if (filled == PAGE) {
                    page(partial, 0, PAGE);
                    filled = 0;
                }
            }
        }

        /** {@code length} zero bytes (a hole): only a page they share with data is hashed. */
        public void zeros(long length) {
            long left = length;
            if (filled > 0) {
                int n = (int) Math.min(PAGE - filled, left);
                Arrays.fill(partial, filled, filled + n, (byte) 0);
                filled += n;
                left -= n;
                if (filled == PAGE) {
                    page(partial, 0, PAGE);
                    filled = 0;
                }
            }
            if (left > 0) {
                pageIndex += left / PAGE;
                filled = (int) (left % PAGE);
                Arrays.fill(partial, 0, filled, (byte) 0);
            }
        }

        /** The digest; a short last page is hashed as it is. */
        public String finish() {
            if (filled > 0) {
                page(partial, 0, filled);
                filled = 0;
            }
            return HexFormat.of().formatHex(digest.digest());
        }

        private void page(byte[] bytes, int offset, int length) {
            if (Arrays.mismatch(bytes, offset, offset + length, ZERO_PAGE, 0, length) >= 0) {
                digest.update(index.clear().putLong(pageIndex).array());
                digest.update(bytes, offset, length);
            }
            pageIndex++;
        }
    }

    /** Reads up to {@code length} bytes at {@code position}; fewer only at the end of the file. */
    private static void read(FileChannel channel, ByteBuffer buffer, long position, int length, Path file) throws IOException {
        buffer.clear().limit(length);
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, position + buffer.position());
            if (n < 0) {
                if (buffer.position() == 0) throw new EOFException(file + " ends before offset " + position);
                return;
            }
        }
    }
}
