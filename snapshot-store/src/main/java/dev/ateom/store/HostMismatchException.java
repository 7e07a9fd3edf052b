package dev.ateom.store;

import java.util.List;
import java.util.stream.Collectors;

/** The snapshot was taken on a host this one differs from in a way a restore may not survive. */
public final class HostMismatchException extends StoreException {
    private final List<HostMismatch> mismatches;

    public HostMismatchException(String snapshotId, List<HostMismatch> mismatches) {
        super("snapshot " + snapshotId + " was taken on a different host: "
                + mismatches.stream().map(HostMismatch::describe).collect(Collectors.joining("; "))
                + " (allow it explicitly to pull anyway)");
        this.mismatches = List.copyOf(mismatches);
    }

    public List<HostMismatch> mismatches() {
        return mismatches;
    }
}
