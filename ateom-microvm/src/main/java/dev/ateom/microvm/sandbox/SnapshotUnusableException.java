package dev.ateom.microvm.sandbox;

/** A snapshot that exists but cannot be restored (not made by ateom, unreadable spec). */
public final class SnapshotUnusableException extends SandboxException {
    public SnapshotUnusableException(String snapshotId, String reason) {
        super("snapshot '" + snapshotId + "' " + reason, null, null, null);
    }
}
