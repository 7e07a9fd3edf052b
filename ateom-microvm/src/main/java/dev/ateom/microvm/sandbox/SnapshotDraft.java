package dev.ateom.microvm.sandbox;

import dev.ateom.snapshot.ArchiveCompression;
import dev.ateom.snapshot.Manifest;
import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotMetadata;
import dev.ateom.snapshot.SnapshotStaging;
import dev.ateom.virtiofsd.ShareKind;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A snapshot being built (see {@link SnapshotStaging}): CHV writes into {@link #chvDir}, the durable share is
 * archived beside it, and {@link #commit} makes it complete with the sandbox spec a clone needs; or it is
 * {@link #discard}ed and nothing of it is left.
 */
public final class SnapshotDraft {
    private static final System.Logger LOG = System.getLogger(SnapshotDraft.class.getName());

    private final SnapshotStaging staging;
    private final SnapshotTags tags;
    private final Map<String, String> hostAnnotations;
    private final SnapshotSpecs specs;

    SnapshotDraft(SnapshotStaging staging, SnapshotTags tags, Map<String, String> hostAnnotations, SnapshotSpecs specs) {
        this.specs = specs;
        this.staging = staging;
        this.tags = tags;
        this.hostAnnotations = hostAnnotations;
    }

    public Path chvDir() { return staging.chvDirectory(); }

    public void archiveDurable(Path durableDir) {
        try {
            staging.archiveDurable(durableDir, ArchiveCompression.NONE,
                    ArchiveProgressReports.alsoToOperation(ArchiveProgressReports.log(staging.snapshotId()), durableDir));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot archive durable dir " + durableDir, e);
        }
    }

    public String commit(SandboxRecord record, String chvVersion) {
        Map<String, String> shares = new LinkedHashMap<>();
        for (ShareKind kind : ShareKind.values()) shares.put(kind.tag(), kind.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        var source = new Manifest.SourceSandbox(record.id(), record.identity().name(), record.identity().namespace(),
                record.identity().uid());
        try {
            Map<String, String> annotations = new LinkedHashMap<>(hostAnnotations);
            annotations.put(SnapshotSpecs.ANNOTATION, SnapshotSpecs.annotationOf(record.spec()));
            // the parent: what the running VM was restored from (its runtime says so), not the sandbox's latest snapshot
            SnapshotAnnotations.put(annotations, tags, record.runtime() == null ? null : record.runtime().restoredFromSnapshotId());
            Snapshot committed = staging.commit(new SnapshotMetadata(source, chvVersion, shares, annotations));
            specs.committed(committed, record.spec());
            return committed.id();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot commit snapshot " + staging.snapshotId() + " of " + record.id(), e);
        }
    }

    public void discard() {
        try {
            staging.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot remove staging dir of " + staging.snapshotId() + ": " + e.getMessage());
        }
    }
}
