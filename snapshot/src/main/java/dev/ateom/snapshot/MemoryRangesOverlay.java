package dev.ateom.snapshot;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Completes a sparse-delta {@code memory-ranges} (what older CHV versions write after an OnDemand
 * restore: only the pages touched since) from the retained source it was restored from. In the
 * delta a data extent is authoritative (even when it holds zeros); a hole means "unchanged since
 * restore", so the base's data is copied there. Holes of the base stay holes.
 */
public final class MemoryRangesOverlay {

    private MemoryRangesOverlay() {
    }

    /** Writes delta-over-base into {@code out}, which must not exist; delta and base are only read. */
    public static DiskUsage overlay(Path delta, Path base, Path out) throws IOException {
        requireSameSize(delta, base);
        boolean done = false;
        try {
            SparseCopy.copy(delta, out);
            fillHolesFrom(base, out);
            done = true;
            return DiskUsage.of(out);
        } finally {
            if (!done) {
                Files.deleteIfExists(out);
            }
        }
    }

    /** Fills every hole of {@code delta} in place with the data {@code base} has there. */
    public static DiskUsage fillHolesFrom(Path base, Path delta) throws IOException {
        requireSameSize(delta, base);
        List<Extent> deltaData;
        try (NativeFile nativeDelta = NativeFile.openReadOnly(delta)) {
            deltaData = nativeDelta.dataExtents();
        }
        List<Extent> holes = complement(deltaData, Files.size(delta));
        List<Extent> baseData;
        try (NativeFile nativeBase = NativeFile.openReadOnly(base)) {
            baseData = nativeBase.dataExtents();
        }
        try (FileChannel from = FileChannel.open(base, StandardOpenOption.READ);
             FileChannel to = FileChannel.open(delta, StandardOpenOption.WRITE)) {
            for (Extent piece : intersect(holes, baseData)) {
                SparseCopy.transfer(from, to, piece, base, delta);
            }
            to.force(true);
        }
        return DiskUsage.of(delta);
    }

    private static void requireSameSize(Path delta, Path base) throws IOException {
        long deltaSize = Files.size(delta);
        long baseSize = Files.size(base);
        if (deltaSize != baseSize) {
            throw new IOException("memory-ranges delta " + delta + " is " + deltaSize + " bytes but base " + base
                    + " is " + baseSize + ": not a delta of that base");
        }
    }

    static List<Extent> complement(List<Extent> extents, long size) {
        List<Extent> gaps = new ArrayList<>();
        long position = 0;
        for (Extent extent : extents) {
            if (extent.offset() > position) {
                gaps.add(new Extent(position, extent.offset() - position));
            }
            position = Math.max(position, extent.end());
        }
        if (position < size) {
            gaps.add(new Extent(position, size - position));
        }
        return gaps;
    }

    /** Both lists sorted and non-overlapping; returns their overlaps in order. */
    static List<Extent> intersect(List<Extent> a, List<Extent> b) {
        List<Extent> result = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < a.size() && j < b.size()) {
            long start = Math.max(a.get(i).offset(), b.get(j).offset());
            long end = Math.min(a.get(i).end(), b.get(j).end());
            if (start < end) {
                result.add(new Extent(start, end - start));
            }
            if (a.get(i).end() < b.get(j).end()) {
                i++;
            } else {
                j++;
            }
        }
        return result;
    }
}
