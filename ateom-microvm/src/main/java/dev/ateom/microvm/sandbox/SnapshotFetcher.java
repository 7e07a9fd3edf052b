package dev.ateom.microvm.sandbox;

/** Brings a snapshot that is not on this host from the snapshot store shared by many hosts. */
public interface SnapshotFetcher {
    /** No store: a snapshot that is not here does not exist. */
    SnapshotFetcher NONE = (snapshotId, allowCpuMismatch) -> { throw NotFoundException.snapshot(snapshotId); };

    /**
     * Pulls the snapshot into the local store (committed and verified) or throws.
     *
     * @throws NotFoundException     the store does not have it either
     * @throws RemoteStoreException  the store failed, the host differs, or the data is damaged (nothing is left behind)
     */
    void fetch(String snapshotId, boolean allowCpuMismatch);
}
