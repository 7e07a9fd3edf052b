package dev.ateom.snapshot;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Copies a file by its data extents only, so holes stay holes. */
final class SparseCopy {
    private SparseCopy() {
    }

    /** Copies source to target (which must not exist), same size and holes. */
    static void copy(Path source, Path target) throws IOException {
        try (NativeFile nativeSource = NativeFile.openReadOnly(source);
             FileChannel from = SafeOpen.regularFile(source);
             FileChannel to = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long size = from.size();
            for (Extent extent : nativeSource.dataExtents()) {
                transfer(from, to, extent, source, target);
            }
            extendTo(target, size);
            to.force(true);
        }
    }

    static void transfer(FileChannel from, FileChannel to, Extent extent, Path source, Path target) throws IOException {
        long done = 0;
        while (done < extent.length()) {
            from.position(extent.offset() + done);
            long moved = to.transferFrom(from, extent.offset() + done, extent.length() - done);
            if (moved <= 0) {
                throw new IOException("copy of " + source + " to " + target + " stalled at offset " + (extent.offset() + done));
            }
            done += moved;
        }
    }

    /** ftruncate upwards: the tail becomes a hole. */
    static void extendTo(Path file, long size) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            if (raf.length() < size) {
                raf.setLength(size);
            }
        }
    }
}
