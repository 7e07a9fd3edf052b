package dev.ateom.microvm.sandbox;

/** Another operation on the sandbox is in progress. */
public final class BusyException extends SandboxException {
    public BusyException(String sandboxId, SandboxState state, Operation operation) {
        this(sandboxId, state, operation.wireName());
    }

    /** {@code what} is the refused action in words ({@code change the egress policy of}). */
    public BusyException(String sandboxId, SandboxState state, String what) {
        super("cannot " + what + " sandbox " + sandboxId + ": another operation is in progress (state " + state + ")",
                sandboxId, state, null);
    }
}
