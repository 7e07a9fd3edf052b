package dev.ateom.microvm.sandbox;

/** A create or clone named an id that a sandbox already has. */
public final class AlreadyExistsException extends SandboxException {
    public AlreadyExistsException(String sandboxId, SandboxState state) {
        super("sandbox '" + sandboxId + "' already exists", sandboxId, state, null);
    }
}
