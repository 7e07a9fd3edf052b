package dev.ateom.snapshot;

import java.util.Objects;

/**
 * How {@link DurableArchive#extract} lays a tree down.
 *
 * @param replaceExisting when the target exists, swap the extracted tree in atomically
 *                        (renameat2 RENAME_EXCHANGE) and delete the old one; otherwise the target must not exist
 * @param syncToDisk      syncfs the target's filesystem before the tree becomes visible at the target
 * @param maxEntries      more entries than this are refused (give the manifest's count: an archive that
 *                        holds more than its manifest says is not the one that was committed)
 */
public record ExtractOptions(boolean replaceExisting, boolean syncToDisk, ArchiveProgress progress, long maxEntries) {
    public static final ExtractOptions DEFAULT = new ExtractOptions(false, true, ArchiveProgress.NONE, Long.MAX_VALUE);

    public ExtractOptions {
        Objects.requireNonNull(progress, "progress");
        if (maxEntries < 0) {
            throw new IllegalArgumentException("maxEntries must not be negative: " + maxEntries);
        }
    }

    public ExtractOptions replacingExisting() {
        return new ExtractOptions(true, syncToDisk, progress, maxEntries);
    }

    public ExtractOptions withProgress(ArchiveProgress newProgress) {
        return new ExtractOptions(replaceExisting, syncToDisk, newProgress, maxEntries);
    }

    public ExtractOptions withoutSync() {
        return new ExtractOptions(replaceExisting, false, progress, maxEntries);
    }

    public ExtractOptions withMaxEntries(long newMaxEntries) {
        return new ExtractOptions(replaceExisting, syncToDisk, progress, newMaxEntries);
    }
}
