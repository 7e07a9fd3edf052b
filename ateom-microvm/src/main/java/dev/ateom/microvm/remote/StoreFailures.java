package dev.ateom.microvm.remote;

import dev.ateom.microvm.sandbox.NotFoundException;
import dev.ateom.microvm.sandbox.RemoteStoreException;
import dev.ateom.microvm.sandbox.RemoteStoreException.Kind;
import dev.ateom.store.BucketNotFoundException;
import dev.ateom.store.ChunkException;
import dev.ateom.store.HostMismatchException;
import dev.ateom.store.LeaseHeldException;
import dev.ateom.store.LeasesUnavailableException;
import dev.ateom.store.PulledSnapshotInvalidException;
import dev.ateom.store.RemoteFormatException;
import dev.ateom.store.RemoteSnapshotConflictException;
import dev.ateom.store.RemoteSnapshotNotFoundException;
import dev.ateom.store.SnapshotTooLargeException;
import dev.ateom.store.StoreConfigException;
import dev.ateom.store.StoreCredentialsException;
import dev.ateom.store.StoreException;
import dev.ateom.store.StoreOption;
import dev.ateom.store.StoreUnavailableException;

import java.io.IOException;
import java.io.UncheckedIOException;

/** The store's typed errors as the daemon's domain errors (which the API turns into problems), in one place. */
final class StoreFailures {
    private StoreFailures() {}

    /**
     * @param what       what was being done, e.g. "push of snapshot x"; the store's message follows it
     * @param snapshotId the snapshot concerned, for a not-found answer (null when none)
     * @return a domain error for store failures; a local I/O failure (disk full while pulling) stays an I/O error (500)
     */
    static RuntimeException of(String what, String snapshotId, IOException e) {
        if (e instanceof RemoteSnapshotNotFoundException && snapshotId != null) return NotFoundException.snapshot(snapshotId);
        if (!(e instanceof StoreException store)) return new UncheckedIOException(what + ": " + e.getMessage(), e);
        String option = store.option().map(StoreOption::flag).orElse(null);
        Kind kind = switch (store) {
            case HostMismatchException mismatch -> Kind.HOST_MISMATCH;
            case ChunkException chunk -> Kind.DATA_INVALID;
            case RemoteFormatException format -> Kind.DATA_INVALID;
            case PulledSnapshotInvalidException invalid -> Kind.DATA_INVALID;
            case RemoteSnapshotConflictException conflict -> Kind.CONFLICT;
            case LeaseHeldException held -> Kind.LEASE_HELD;
            case LeasesUnavailableException unavailable -> Kind.LEASES_UNAVAILABLE;
            case SnapshotTooLargeException tooLarge -> Kind.TOO_LARGE;
            case StoreUnavailableException unavailable -> Kind.UNAVAILABLE;
            case BucketNotFoundException bucket -> Kind.REFUSED;
            case StoreCredentialsException credentials -> Kind.REFUSED;
            case StoreConfigException config -> Kind.REFUSED;
            default -> Kind.REFUSED;
        };
        return new RemoteStoreException(kind, what + ": " + e.getMessage(), option, e);
    }
}
