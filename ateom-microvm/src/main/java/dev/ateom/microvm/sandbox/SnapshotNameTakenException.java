package dev.ateom.microvm.sandbox;

/** A suspend or checkpoint asked for a snapshot name another snapshot on this host has (or is being given right now). */
public final class SnapshotNameTakenException extends SandboxException {
    public SnapshotNameTakenException(String name, String sandboxId, SandboxState state) {
        super("a snapshot named '" + name + "' already exists on this host; snapshot names are unique per host", sandboxId, state, null);
    }
}
