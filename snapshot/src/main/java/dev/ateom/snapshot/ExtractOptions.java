package dev.ateom.snapshot;

import java.util.Objects;

/**
 * How {@link DurableArchive#extract} lays a tree down.
 *
 * @param replaceExisting when the target exists, swap the extracted tree in atomically
 *                        (renameat2 RENAME_EXCHANGE) and delete the old one; otherwise the target must not exist
 * @param syncToDisk      syncfs the target's filesystem before the tree becomes visible at the target
 */
public record ExtractOptions(boolean replaceExisting, boolean syncToDisk, ArchiveProgress progress) {
    public static final ExtractOptions DEFAULT = new ExtractOptions(false, true, ArchiveProgress.NONE);

    public ExtractOptions {
        Objects.requireNonNull(progress, "progress");
    }

    public ExtractOptions replacingExisting() {
        return new ExtractOptions(true, syncToDisk, progress);
    }

    public ExtractOptions withProgress(ArchiveProgress newProgress) {
        return new ExtractOptions(replaceExisting, syncToDisk, newProgress);
    }

    public ExtractOptions withoutSync() {
        return new ExtractOptions(replaceExisting, false, progress);
    }
}
