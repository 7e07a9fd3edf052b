package dev.ateom.microvm.systeminfo.sync;

/**
 * Told when a running sandbox's system-info sync cannot apply a change of its source (the volume keeps its last good
 * generation): once per distinct failure, not at every retry. Called on the sandbox's sync thread; must return at once.
 */
@FunctionalInterface
public interface SyncFailureListener {
    SyncFailureListener NONE = (sandboxId, volume, reason) -> { };

    void syncFailed(String sandboxId, String volume, String reason);
}
