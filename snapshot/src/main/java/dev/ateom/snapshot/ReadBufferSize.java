package dev.ateom.snapshot;

import java.util.List;

/**
 * How large a read buffer needs to be: what there is to read, in whole pages, but at most the chunk its caller reads
 * large files in. One chunk (1 MiB) for every file read was most of what a suspend allocated: a commit hashes CHV's
 * config.json and state.json and the durable archive (small ones, mostly) and the memory of a small guest, and each
 * 1 MiB buffer is a sixth of the daemon's young generation ({@code -Xmn8m} in bin/ateom), so every few commits brought
 * a young collection, which lands on whatever request runs then.
 */
final class ReadBufferSize {
    private ReadBufferSize() {
    }

    /** @return {@code bytes} rounded up to whole pages (one page at least), at most {@code max} */
    static int forContent(long bytes, int max) {
        long pages = (Math.max(bytes, 1) + MemoryRangesCompactor.PAGE_SIZE - 1) / MemoryRangesCompactor.PAGE_SIZE;
        return (int) Math.min(max, pages * MemoryRangesCompactor.PAGE_SIZE);
    }

    /** @return a buffer size for reading each of {@code extents} from its page-aligned start, at most {@code max} */
    static int forExtents(List<Extent> extents, int max) {
        long largest = 0;
        for (Extent extent : extents) {
            largest = Math.max(largest, extent.end() - (extent.offset() - extent.offset() % MemoryRangesCompactor.PAGE_SIZE));
        }
        return forContent(largest, max);
    }
}
