package dev.ateom.microvm.sandbox;

/** Deleting this snapshot would strand the suspended sandbox that resumes from it. */
public final class SnapshotInUseException extends SandboxException {
    public SnapshotInUseException(String snapshotId) {
        super("snapshot '" + snapshotId + "' is the latest snapshot of a suspended sandbox, which resumes from it; "
                + "delete with force=true to drop it anyway", null, null, null);
    }
}
