package dev.ateom.snapshot;

import java.io.IOException;

/** The steps of {@link SnapshotStaging#commit}, in order; tests stop the commit at each to prove atomicity. */
enum CommitStep {
    VALIDATED,
    MEMORY_COMPACTED,
    HASHED,
    MANIFEST_WRITTEN,
    SYNCED,
    RENAMED,
    PARENT_SYNCED;

    /** Sees each step as it completes. */
    @FunctionalInterface
    interface Observer {
        Observer NONE = step -> { };

        void completed(CommitStep step) throws IOException;
    }
}
