package dev.ateom.microvm.sandbox;

/** Another operation on the sandbox is in progress. */
public final class BusyException extends SandboxException {
    public BusyException(String sandboxId, SandboxState state, Operation operation) {
        super("cannot " + operation.wireName() + " sandbox " + sandboxId + ": another operation is in progress (state " + state + ")",
                sandboxId, state, null);
    }
}
