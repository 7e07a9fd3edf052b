package dev.ateom.snapshot;

/** Called while an archive is written or read: content bytes and entries done so far. */
@FunctionalInterface
public interface ArchiveProgress {
    ArchiveProgress NONE = (bytes, entries) -> { };

    void onProgress(long bytes, long entries);
}
