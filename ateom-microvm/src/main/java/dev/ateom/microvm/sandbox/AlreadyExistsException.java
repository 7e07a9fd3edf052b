package dev.ateom.microvm.sandbox;

/** A create or clone named an id that a sandbox already has, or whose directory an earlier sandbox left behind. */
public final class AlreadyExistsException extends SandboxException {
    public AlreadyExistsException(String sandboxId, SandboxState state) {
        this("sandbox '" + sandboxId + "' already exists", sandboxId, state);
    }

    private AlreadyExistsException(String detail, String sandboxId, SandboxState state) {
        super(detail, sandboxId, state, null);
    }

    /**
     * The id's directory exists without a sandbox (an orphan reported at start): its data is never handed to a new
     * sandbox, and never wiped on a request either, since it may be all that is left of an earlier one.
     */
    public static AlreadyExistsException leftoverDirectory(String sandboxId) {
        return new AlreadyExistsException("the state dir still holds a directory of an earlier sandbox '" + sandboxId
                + "' (an orphan, see the daemon's log and ateom_orphan_sandbox_dirs); an operator must remove it before the id"
                + " can be used again", sandboxId, null);
    }
}
