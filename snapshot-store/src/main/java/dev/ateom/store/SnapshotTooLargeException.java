package dev.ateom.store;

/** A remote snapshot whose files would not fit on this host's state filesystem: refused before anything is written. */
public final class SnapshotTooLargeException extends StoreException {
    public SnapshotTooLargeException(String snapshotId, long fileBytes, long dataBytes, long usableBytes) {
        super("snapshot " + snapshotId + " is not pulled: its files are " + fileBytes + " bytes (" + dataBytes
                + " of them stored data, the rest holes), and the state filesystem has " + usableBytes + " bytes free");
    }
}
