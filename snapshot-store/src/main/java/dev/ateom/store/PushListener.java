package dev.ateom.store;

/** Told of every step of a push, from the transfer threads: keep it quick and thread-safe. */
@FunctionalInterface
public interface PushListener {
    PushListener NONE = status -> { };

    void onProgress(PushStatus status);
}
