package dev.ateom.microvm.http;

import dev.ateom.microvm.host.HostLimits;
import dev.ateom.microvm.sandbox.AlreadyExistsException;
import dev.ateom.microvm.sandbox.BusyException;
import dev.ateom.microvm.sandbox.GuestProbeException;
import dev.ateom.microvm.sandbox.HostToolsUnavailableException;
import dev.ateom.microvm.sandbox.InvalidSpecException;
import dev.ateom.microvm.sandbox.InvalidStateException;
import dev.ateom.microvm.sandbox.NetworkUnavailableException;
import dev.ateom.microvm.sandbox.NotFoundException;
import dev.ateom.microvm.sandbox.OperationFailedException;
import dev.ateom.microvm.sandbox.RemoteStoreException;
import dev.ateom.microvm.sandbox.SandboxException;
import dev.ateom.microvm.sandbox.SnapshotNameTakenException;
import dev.ateom.microvm.sandbox.SnapshotInUseException;
import dev.ateom.microvm.sandbox.SnapshotUnusableException;

/**
 * The one place where the domain's errors become problem documents: status, type and title of each kind. The
 * types and statuses are the API's contract (clients and the CLI's exit codes read them): change none lightly.
 */
public final class SandboxProblems {
    private SandboxProblems() {}

    public static ApiException of(SandboxException e) {
        return switch (e) {
            case NotFoundException notFound -> problem(404, "not-found", notFound.kind() + " not found", e);
            case AlreadyExistsException exists -> problem(409, "already-exists", "Sandbox already exists", exists);
            case InvalidSpecException invalid -> ApiException.invalidFields(invalid.violations().stream()
                    .map(v -> new Problem.FieldError(v.field(), v.reason())).toList());
            case InvalidStateException state -> problem(409, "invalid-state", "Operation not allowed in this state", state);
            case BusyException busy -> problem(409, "invalid-state", "Operation not allowed in this state", busy);
            case SnapshotUnusableException unusable -> problem(422, "snapshot-unusable", "Snapshot cannot be restored", unusable);
            case SnapshotInUseException inUse -> problem(409, "snapshot-in-use", "Snapshot in use", inUse);
            case SnapshotNameTakenException taken -> problem(409, "snapshot-name-taken", "Snapshot name already taken", taken);
            case HostToolsUnavailableException tools ->
                    problem(503, "host-tools-unavailable", "A host tool sandboxes need is not available", tools);
            case NetworkUnavailableException network -> problem(503, "network-unavailable", "No network for the sandbox", network);
            case RemoteStoreException store -> storeProblem(store);
            case GuestProbeException probe -> probe.timedOut()
                    ? problem(504, "guest-probe-timeout", "The guest probe did not answer in time", probe)
                    : problem(502, "guest-probe-unreachable", "The guest probe could not be reached", probe);
            case OperationFailedException failed -> problem(500, failed.operation().wireName() + "-failed",
                    "Sandbox " + failed.operation().wireName() + " failed", withHostCause(failed), failed);
        };
    }

    /**
     * 503 when the store does not answer, 502 when it answers wrongly or holds damaged data, 409 for conflicts of state,
     * 507 for a snapshot larger than this host's free disk.
     */
    private static ApiException storeProblem(RemoteStoreException e) {
        return switch (e.kind()) {
            case NOT_CONFIGURED -> problem(409, "snapshot-store-not-configured", "No snapshot store is configured", e);
            case UNAVAILABLE -> problem(503, "snapshot-store-unavailable", "The snapshot store is unavailable", e);
            case REFUSED -> problem(502, "snapshot-store-error", "The snapshot store refused the request", e);
            case HOST_MISMATCH -> problem(409, "host-mismatch", "The snapshot was taken on a different host", e);
            case DATA_INVALID -> problem(502, "snapshot-store-data-invalid", "The snapshot in the store is damaged", e);
            case CONFLICT -> problem(409, "snapshot-conflict", "The store holds a different snapshot with this id", e);
            case LEASE_HELD -> problem(409, "lease-held", "Another host holds the sandbox's lease", e);
            case LEASES_UNAVAILABLE -> problem(409, "leases-unavailable", "Leases cannot be had from this store", e);
            case TOO_LARGE -> problem(507, "snapshot-too-large", "The snapshot does not fit on this host", e);
        };
    }

    private static ApiException problem(int status, String type, String title, SandboxException e) {
        return problem(status, type, title, e.detail(), e);
    }

    private static ApiException problem(int status, String type, String title, String detail, SandboxException e) {
        return new ApiException(status, type, title, detail, e.sandboxId(), e.state() == null ? null : e.state().name(), e);
    }

    /** The detail, and the host limit behind the failure named when it is one (kvm_pvm refusing the nested state). */
    private static String withHostCause(OperationFailedException failed) {
        return HostLimits.causeOf(failed).map(cause -> failed.detail() + ". Cause: " + cause).orElse(failed.detail());
    }
}
