package dev.ateom.microvm.sandbox;

/**
 * Why a sandbox or snapshot request was refused or failed, in the domain's terms: each carries the sandbox it
 * concerns and that sandbox's state after the failure, where there is one. {@code http/} turns them into
 * problem documents in one place; nothing here knows about HTTP.
 */
public abstract sealed class SandboxException extends RuntimeException
        permits NotFoundException, AlreadyExistsException, InvalidSpecException, InvalidStateException, BusyException,
        SnapshotUnusableException, SnapshotInUseException, SnapshotNameTakenException, HostToolsUnavailableException,
        NetworkUnavailableException, OperationFailedException, RemoteStoreException, GuestProbeException {
    private final String sandboxId;
    private final SandboxState state;

    protected SandboxException(String detail, String sandboxId, SandboxState state, Throwable cause) {
        super(detail, cause);
        this.sandboxId = sandboxId;
        this.state = state;
    }

    /** The sandbox concerned, or null when none (a snapshot, a refused spec). */
    public String sandboxId() { return sandboxId; }

    /** The sandbox's state after the failure, or null when there is no sandbox. */
    public SandboxState state() { return state; }

    public String detail() { return getMessage(); }
}
