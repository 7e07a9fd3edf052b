package dev.ateom.store;

/** No manifest for this snapshot id in the store (never pushed, deleted, or the push did not finish). */
public final class RemoteSnapshotNotFoundException extends StoreException {
    public RemoteSnapshotNotFoundException(String snapshotId) {
        super("snapshot " + snapshotId + " is not in the store");
    }
}
