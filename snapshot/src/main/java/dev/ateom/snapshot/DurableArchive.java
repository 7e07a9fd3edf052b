package dev.ateom.snapshot;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The durable share as a tar archive: regular files (sparse ones stay sparse), directories incl.
 * empty ones, symlinks (never followed), hard links (content stored once), modes, uid/gid, mtimes
 * (ns), user.* xattrs, names of any length and in any encoding (bytes, PAX). Fifos, sockets and
 * device nodes are skipped on create and refused on extract. Both directions walk directory
 * descriptors, so depth and path length do not limit them.
 */
public final class DurableArchive {
    private DurableArchive() {
    }

    /** Writes {@code root} into {@code archive} (must not exist; fsynced when done; removed on failure). */
    public static ArchiveSummary create(Path root, Path archive, ArchiveCompression compression, ArchiveProgress progress)
            throws IOException {
        return new DurableArchiveWriter(root, progress).write(archive, compression);
    }

    public static ArchiveSummary create(Path root, Path archive) throws IOException {
        return create(root, archive, ArchiveCompression.NONE, ArchiveProgress.NONE);
    }

    /**
     * Extracts {@code archive} so that {@code target} appears complete or not at all. Without
     * {@link ExtractOptions#replaceExisting()} the target must not exist; with it an existing
     * target is swapped out atomically (for resuming a sandbox into its own durable dir).
     *
     * @throws UnsafeArchiveEntryException naming the first refused entry; nothing is left behind
     */
    public static ArchiveSummary extract(Path archive, Path target, ExtractOptions options) throws IOException {
        return new SafeExtractor(options).extract(archive, target);
    }

    public static ArchiveSummary extract(Path archive, Path target) throws IOException {
        return extract(archive, target, ExtractOptions.DEFAULT);
    }

    /**
     * Removes what an extraction interrupted by a crash left in {@code dir} (hidden
     * {@code .<name>.extract-<random>} trees); call it for a sandbox dir before extracting there again.
     *
     * @return how many were removed
     */
    public static int removeInterruptedExtractions(Path dir) throws IOException {
        int removed = 0;
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir,
                entry -> entry.getFileName().toString().startsWith(".") && entry.getFileName().toString().contains(SafeExtractor.TEMP_INFIX))) {
            for (Path leftover : entries) {
                TreeDeleter.delete(leftover);
                removed++;
            }
        }
        return removed;
    }

    /** Reads the whole archive (so a truncated or corrupt one fails), handing each entry's content to the visitor. */
    public static ArchiveSummary scan(Path archive, EntryVisitor visitor) throws IOException {
        long entries = 0;
        long bytes = 0;
        try (TarInput in = ArchiveReader.open(archive)) {
            TarEntry entry;
            while ((entry = in.next()) != null) {
                byte[] realSize = entry.extensions().get(ArchiveFormat.SPARSE_REALSIZE);
                ArchiveEntryInfo info = new ArchiveEntryInfo(ByteNames.display(entry.name()), (char) entry.type(),
                        realSize != null ? Long.parseLong(new String(realSize, StandardCharsets.US_ASCII)) : entry.size(),
                        ByteNames.display(entry.linkName()));
                visitor.visit(info, in.content());
                in.content().transferTo(OutputStream.nullOutputStream()); // read to the end: a truncated archive fails here
                bytes += entry.size();
                entries++;
            }
        }
        return new ArchiveSummary(entries, bytes, 0);
    }

    /** Sees one entry; may read its content (for a sparse file: its data extents back to back). */
    @FunctionalInterface
    public interface EntryVisitor {
        EntryVisitor NONE = (info, content) -> { };

        void visit(ArchiveEntryInfo info, InputStream content) throws IOException;
    }
}
