package dev.ateom.microvm.sandbox;

/** The sandbox's state does not allow the operation (resume of a RUNNING sandbox, ...). */
public final class InvalidStateException extends SandboxException {
    public InvalidStateException(String sandboxId, SandboxState state, Operation operation) {
        this(sandboxId, state, operation.wireName());
    }

    /** {@code what} is the refused action in words ({@code change the egress policy of}). */
    public InvalidStateException(String sandboxId, SandboxState state, String what) {
        super("cannot " + what + " sandbox " + sandboxId + " in state " + state, sandboxId, state, null);
    }
}
