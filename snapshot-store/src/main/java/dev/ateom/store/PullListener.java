package dev.ateom.store;

/** Told of every step of a pull, from the transfer threads: keep it quick and thread-safe. */
@FunctionalInterface
public interface PullListener {
    PullListener NONE = status -> { };

    void onProgress(PullStatus status);
}
