package dev.ateom.microvm.sandbox;

/**
 * An operation failed on its way: the cause says why, the state says what the sandbox is now (RUNNING after a
 * suspend rolled back, SUSPENDED after a resume, FAILED after a create or clone, DELETING after a delete).
 */
public final class OperationFailedException extends SandboxException {
    private final Operation operation;

    public OperationFailedException(Operation operation, String sandboxId, SandboxState state, String detail, Throwable cause) {
        super(detail, sandboxId, state, cause);
        this.operation = operation;
    }

    public Operation operation() { return operation; }
}
