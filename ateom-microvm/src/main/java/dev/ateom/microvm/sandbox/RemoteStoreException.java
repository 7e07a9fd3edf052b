package dev.ateom.microvm.sandbox;

/**
 * A snapshot store operation that was refused or failed. {@link Kind} says why, so the API can answer with the
 * right status; {@code option} names the daemon setting to look at when one is to blame (else null).
 */
public final class RemoteStoreException extends SandboxException {
    /** Why a store operation did not happen. */
    public enum Kind {
        /** no {@code --snapshot-store} is set */
        NOT_CONFIGURED,
        /** the store does not answer (refused, unknown host, timeout) */
        UNAVAILABLE,
        /** the store answered with an error: unknown bucket, credentials refused, another status */
        REFUSED,
        /** the snapshot was taken on a host this one differs from (CPU, CHV version) */
        HOST_MISMATCH,
        /** a chunk is missing or corrupt, or a manifest is malformed: nothing was restored from it */
        DATA_INVALID,
        /** the store holds a different snapshot under the same id */
        CONFLICT,
        /** another host holds the lease of the sandbox */
        LEASE_HELD,
        /** leases are enforced but the store's lease verdict is not HONOURED */
        LEASES_UNAVAILABLE,
        /** the snapshot's files do not fit on this host's state filesystem: nothing was pulled */
        TOO_LARGE
    }

    private final Kind kind;
    private final String option;

    public RemoteStoreException(Kind kind, String detail, String option, String sandboxId, SandboxState state, Throwable cause) {
        super(detail, sandboxId, state, cause);
        this.kind = kind;
        this.option = option;
    }

    public RemoteStoreException(Kind kind, String detail, String option, Throwable cause) {
        this(kind, detail, option, null, null, cause);
    }

    public Kind kind() { return kind; }

    /** The setting to look at (a flag name without dashes), or null. */
    public String option() { return option; }

    /** The same failure, told about a sandbox and the state it is in now. */
    public RemoteStoreException concerning(String sandboxId, SandboxState state) {
        return new RemoteStoreException(kind, detail(), option, sandboxId, state, getCause());
    }
}
