package dev.ateom.microvm.sandbox;

import dev.ateom.snapshot.SnapshotStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Starts the snapshots suspend and checkpoint take ({@link SnapshotDraft}), each under a fresh id made of the
 * sandbox's and random hex, carrying what every snapshot of this host records about it.
 */
public final class SnapshotWriter {
    private final SnapshotStore store;
    private final SnapshotSpecs specs;
    private volatile Map<String, String> hostAnnotations = Map.of();

    public SnapshotWriter(SnapshotStore store, SnapshotSpecs specs) {
        this.store = store;
        this.specs = specs;
    }

    /** Annotations every snapshot taken from now on records about this host (the CPU, for restore hosts to compare). */
    public void annotateWith(Map<String, String> annotations) { this.hostAnnotations = Map.copyOf(annotations); }

    public SnapshotDraft begin(String sandboxId) { return begin(sandboxId, SnapshotTags.NONE); }

    /** A snapshot of {@code sandboxId} that will carry {@code tags} (checked and its name reserved by the caller). */
    public SnapshotDraft begin(String sandboxId, SnapshotTags tags) {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        String id = sandboxId + "-" + HexFormat.of().formatHex(random);
        try {
            return new SnapshotDraft(store.stage(id), tags, hostAnnotations, specs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a staging dir for a snapshot of " + sandboxId, e);
        }
    }
}
