package dev.ateom.microvm.sandbox;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.Set;

/**
 * The total an archive of a durable dir will report, counted before it is written, for the progress of an
 * asynchronous suspend or checkpoint: the apparent size of its regular files, each hard-linked file once. One stat per
 * entry, given up (unknown) past {@link #MAX_ENTRIES} so a dir of many small files does not lengthen a pause window
 * noticeably. A sparse file's holes are counted though not archived, so the last bytes done may fall short of it.
 */
final class DurableSizeEstimate {
    static final int MAX_ENTRIES = 100_000;

    private DurableSizeEstimate() {}

    /** The total, or -1 when it is not known (too many entries, unreadable). */
    static long of(Path durableDir) {
        long[] total = {0};
        int[] entries = {0};
        Set<Object> seen = new HashSet<>();
        try {
            Files.walkFileTree(durableDir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    if (++entries[0] > MAX_ENTRIES) return FileVisitResult.TERMINATE;
                    if (attrs.isRegularFile() && (attrs.fileKey() == null || seen.add(attrs.fileKey()))) total[0] += attrs.size();
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    return ++entries[0] > MAX_ENTRIES ? FileVisitResult.TERMINATE : FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            return -1;
        }
        return entries[0] > MAX_ENTRIES ? -1 : total[0];
    }
}
