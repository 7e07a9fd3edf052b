package dev.ateom.microvm.sandbox;

/** Brings a snapshot that is not on this host from the snapshot store shared by many hosts. */
public interface SnapshotFetcher {
    /** No store: a snapshot that is not here does not exist. */
    SnapshotFetcher NONE = (snapshotId, allowCpuMismatch, purpose) -> { throw NotFoundException.snapshot(snapshotId); };

    /**
     * Pulls the snapshot into the local store (committed and verified) or throws. What {@code purpose} will need (the
     * sandbox's lease, its id free here) is checked first: a pull that would be refused afterwards pulls nothing.
     *
     * @throws NotFoundException     the store does not have it either
     * @throws RemoteStoreException  the store failed, the host differs, the data is damaged (nothing is left behind), or
     *                               what the pull is for would be refused (lease held elsewhere, leases unavailable)
     */
    void fetch(String snapshotId, boolean allowCpuMismatch, PullFor purpose);
}
