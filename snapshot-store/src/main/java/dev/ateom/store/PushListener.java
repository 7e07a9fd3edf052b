package dev.ateom.store;

import java.io.IOException;

/** Told of every step of a push, from the transfer threads: keep it quick and thread-safe. */
@FunctionalInterface
public interface PushListener {
    PushListener NONE = status -> { };

    void onProgress(PushStatus status);

    /**
     * Called once, just before the snapshot becomes visible in the store (its manifest is written), or when its
     * manifest is found there already: the last moment a caller can record that the snapshot's sandbox may now be
     * taken up elsewhere. Throwing fails the push, with no manifest written.
     */
    default void beforeVisible(String snapshotId) throws IOException { }
}
