package dev.ateom.store;

import java.util.List;

/** A pulled snapshot whose chunks all verified but whose files fail the snapshot module's own verification. */
public final class PulledSnapshotInvalidException extends StoreException {
    private final List<String> problems;

    public PulledSnapshotInvalidException(String snapshotId, List<String> problems) {
        super("pulled snapshot " + snapshotId + " fails verification: " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
