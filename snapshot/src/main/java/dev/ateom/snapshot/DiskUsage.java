package dev.ateom.snapshot;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A file's apparent size beside the bytes it really occupies. "Allocated" is the sum of its
 * data extents as SEEK_DATA/SEEK_HOLE report them, which on ext4, xfs, btrfs and tmpfs is the
 * block-granular allocation (like {@code du}, without metadata blocks).
 */
public record DiskUsage(long apparentBytes, long allocatedBytes) {

    public static DiskUsage of(Path file) throws IOException {
        try (NativeFile nativeFile = NativeFile.openReadOnly(file)) {
            return new DiskUsage(nativeFile.size(), allocated(nativeFile.dataExtents()));
        }
    }

    static long allocated(List<Extent> extents) {
        return extents.stream().mapToLong(Extent::length).sum();
    }

    /** True when some of the apparent size is holes. */
    public boolean sparse() {
        return allocatedBytes < apparentBytes;
    }
}
