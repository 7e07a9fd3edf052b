package dev.ateom.snapshot;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A snapshot's {@code config.json} as read once: what {@link ChvConfigPolicy} checks is what {@link ChvConfigRewriter}
 * writes into the restore dir, never a second read of the file. The file can be edited on disk (the reason for the
 * check); read twice, an edit between the check and the rewrite would reach the hypervisor unchecked. Immutable:
 * every rewrite works on a copy of the tree.
 */
public final class ChvConfig {
    private final ObjectNode tree;
    private final Path origin;

    private ChvConfig(ObjectNode tree, Path origin) {
        this.tree = tree;
        this.origin = origin;
    }

    /** Reads and parses {@code file}: a {@link SnapshotFormatException} when it is not a JSON object. */
    public static ChvConfig read(Path file) throws IOException {
        return new ChvConfig(ChvConfigRewriter.read(file), Objects.requireNonNull(file, "file"));
    }

    /** The file it was read from: named in errors. */
    public Path origin() { return origin; }

    /** The tree itself, for a reader that changes nothing (the policy's check): no copy. */
    ObjectNode readOnly() { return tree; }

    /** A copy of the tree, for a rewrite (which must not change what another restore gets). */
    ObjectNode copy() { return tree.deepCopy(); }
}
