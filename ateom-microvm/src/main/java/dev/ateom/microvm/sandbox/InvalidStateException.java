package dev.ateom.microvm.sandbox;

/** The sandbox's state does not allow the operation (resume of a RUNNING sandbox, ...). */
public final class InvalidStateException extends SandboxException {
    public InvalidStateException(String sandboxId, SandboxState state, Operation operation) {
        super("cannot " + operation.wireName() + " sandbox " + sandboxId + " in state " + state, sandboxId, state, null);
    }
}
