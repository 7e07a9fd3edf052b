package dev.ateom.store;

/** The store already has a snapshot of this id whose local manifest differs from the one being pushed. */
public final class RemoteSnapshotConflictException extends StoreException {
    public RemoteSnapshotConflictException(String snapshotId) {
        super("the store already holds a different snapshot " + snapshotId + "; delete it remotely first to replace it");
    }
}
