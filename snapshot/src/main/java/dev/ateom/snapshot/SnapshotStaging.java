package dev.ateom.snapshot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * A snapshot being built. CHV writes into {@link #chvDirectory()} (pass {@link #chvDestinationUrl()}
 * as vm.snapshot's destination_url), {@link #archiveDurable} writes durable.tar beside it, and
 * {@link #commit} makes it a committed snapshot. Closing without a commit deletes everything.
 */
public final class SnapshotStaging implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SnapshotStaging.class.getName());

    private final SnapshotStore store;
    private final String snapshotId;
    private final SnapshotLayout layout;
    private ArchiveSummary archive;
    private ArchiveCompression compression;
    private boolean committed;

    SnapshotStaging(SnapshotStore store, String snapshotId, SnapshotLayout layout) {
        this.store = store;
        this.snapshotId = snapshotId;
        this.layout = layout;
    }

    public String snapshotId() {
        return snapshotId;
    }

    /** The staging dir's layout (files are where they will be once committed). */
    public SnapshotLayout layout() {
        return layout;
    }

    /** Exists and is empty until CHV writes config.json, state.json and memory-ranges into it. */
    public Path chvDirectory() {
        return layout.chvDirectory();
    }

    /** For vm.snapshot's {@code destination_url}. */
    public String chvDestinationUrl() {
        return "file://" + layout.chvDirectory().toAbsolutePath();
    }

    /** Tars the sandbox's durable share root into durable.tar; refuses any root overlapping a system-info dir. */
    public ArchiveSummary archiveDurable(Path durableRoot, ArchiveCompression compression, ArchiveProgress progress) throws IOException {
        store.refuseSystemInfo(durableRoot);
        if (archive != null) {
            throw new IllegalStateException("durable share of snapshot " + snapshotId + " already archived");
        }
        archive = DurableArchive.create(durableRoot, layout.durableArchive(), compression, progress);
        this.compression = compression;
        return archive;
    }

    /**
     * For a {@link MemoryRangesCompleteness#SPARSE_DELTA} memory-ranges: fills its holes from the
     * memory-ranges of the snapshot the VM was restored from, so this snapshot stands alone.
     */
    public DiskUsage completeMemoryRangesFrom(Path retainedSourceMemoryRanges) throws IOException {
        return MemoryRangesOverlay.fillHolesFrom(retainedSourceMemoryRanges, layout.memoryRanges());
    }

    /**
     * Makes the snapshot permanent: checks the pieces, punches holes over zero pages of
     * memory-ranges, hashes every file into manifest.json, fsyncs everything and renames the
     * staging dir to {@code snapshots/<id>}. memory-ranges is read once: the punching pass also digests it.
     */
    public Snapshot commit(SnapshotMetadata metadata) throws IOException {
        if (committed) {
            throw new IllegalStateException("snapshot " + snapshotId + " already committed");
        }
        CommitStep.Observer observer = store.observer();
        if (archive == null) {
            throw new IllegalStateException("snapshot " + snapshotId + ": commit before the durable share was archived");
        }
        requireOnlyExpectedFiles();
        ObjectNode config = ChvConfigRewriter.read(layout.chvConfig());
        Manifest.VmSizing sizing = sizing(config);
        requireSharesMatch(config, metadata);
        observer.completed(CommitStep.VALIDATED);

        MemoryRangesCompactor.Result compaction = MemoryRangesCompactor.punchZeroPages(layout.memoryRanges());
        LOG.log(Level.DEBUG, "snapshot {0}: memory-ranges {1} allocated before, {2} after punching zero pages",
                snapshotId, compaction.before().allocatedBytes(), compaction.after().allocatedBytes());
        observer.completed(CommitStep.MEMORY_COMPACTED);

        List<Manifest.FileEntry> files = new ArrayList<>();
        for (String file : SnapshotLayout.CONTENT_FILES) {
            Path path = layout.directory().resolve(file);
            makeReadOnly(path);
            files.add(file.equals(SnapshotLayout.MEMORY_RANGES)
                    ? new Manifest.FileEntry(file, Files.size(path), compaction.digest(), MemoryPageDigest.ALGORITHM)
                    : new Manifest.FileEntry(file, Files.size(path), Sha256.of(path)));
        }
        observer.completed(CommitStep.HASHED);

        Manifest manifest = new Manifest(Manifest.FORMAT_VERSION, snapshotId, Instant.now(), metadata.source(), metadata.chvVersion(),
                sizing, metadata.sharesByTag(), Manifest.MemoryRanges.of(compaction.after()),
                new Manifest.DurableArchiveInfo(SnapshotLayout.DURABLE_ARCHIVE, compression.name().toLowerCase(Locale.ROOT),
                        archive.entries(), archive.contentBytes()),
                files, metadata.annotations());
        byte[] manifestBytes = ManifestCodec.toBytes(manifest);
        Files.write(layout.manifest(), manifestBytes);
        makeReadOnly(layout.manifest());
        observer.completed(CommitStep.MANIFEST_WRITTEN);

        for (String file : SnapshotLayout.CONTENT_FILES) {
            Fsync.file(layout.directory().resolve(file));
        }
        Fsync.file(layout.manifest());
        Fsync.directory(layout.chvDirectory());
        Fsync.directory(layout.directory());
        observer.completed(CommitStep.SYNCED);

        store.publish(layout.directory(), snapshotId, manifestBytes, manifest);
        committed = true;
        observer.completed(CommitStep.RENAMED);
        Fsync.directory(store.snapshotsDirectory());
        observer.completed(CommitStep.PARENT_SYNCED);
        return new Snapshot(snapshotId, new SnapshotLayout(store.snapshotsDirectory().resolve(snapshotId)), manifest);
    }

    /** Deletes the staging dir unless committed. */
    @Override
    public void close() throws IOException {
        if (!committed) {
            TreeDeleter.delete(layout.directory());
        }
    }

    private void requireOnlyExpectedFiles() throws IOException {
        for (String file : SnapshotLayout.CONTENT_FILES) {
            if (!Files.isRegularFile(layout.directory().resolve(file), LinkOption.NOFOLLOW_LINKS)) {
                throw new SnapshotFormatException("snapshot " + snapshotId + ": " + file + " is missing (did vm.snapshot write into "
                        + layout.chvDirectory() + "?)");
            }
        }
        TreeSet<String> unexpected = new TreeSet<>();
        collect(layout.directory(), "", unexpected);
        unexpected.removeAll(SnapshotLayout.CONTENT_FILES);
        unexpected.remove(SnapshotLayout.CHV_DIR + "/");
        if (!unexpected.isEmpty()) {
            throw new SnapshotFormatException("snapshot " + snapshotId + " has unexpected files " + unexpected
                    + " (only chv/config.json, chv/state.json, chv/memory-ranges and durable.tar belong in a snapshot)");
        }
    }

    static void collect(Path dir, String prefix, TreeSet<String> names) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = prefix + entry.getFileName();
                if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                    names.add(name + "/");
                    collect(entry, name + "/", names);
                } else {
                    names.add(name);
                }
            }
        }
    }

    private Manifest.VmSizing sizing(ObjectNode config) {
        JsonNode vcpus = config.path("cpus").path("boot_vcpus");
        JsonNode memory = config.path("memory").path("size");
        if (!vcpus.canConvertToInt() || !memory.canConvertToLong()) {
            throw new SnapshotFormatException("snapshot " + snapshotId + ": config.json lacks cpus.boot_vcpus or memory.size");
        }
        return new Manifest.VmSizing(vcpus.intValue(), memory.longValue());
    }

    private void requireSharesMatch(ObjectNode config, SnapshotMetadata metadata) {
        TreeSet<String> tags = new TreeSet<>();
        config.path("fs").forEach(fs -> tags.add(fs.path("tag").asText()));
        if (!tags.equals(new TreeSet<>(metadata.sharesByTag().keySet()))) {
            throw new SnapshotFormatException("snapshot " + snapshotId + ": config.json has fs tags " + tags
                    + " but the shares given are " + new TreeSet<>(metadata.sharesByTag().keySet()));
        }
    }

    /**
     * A committed snapshot is immutable; clones hard-link its files, so the mode says so too. Readable by all: a jailed
     * VMM restores it under a uid of its own, and a mode added at restore would change every hard link of the committed
     * file (one host's copy would differ from another's). Who can reach the files is decided above them: the state dir
     * is 0700, and a jailed VMM sees only the restore dir bind-mounted into its root.
     */
    private static void makeReadOnly(Path path) throws IOException {
        Files.setAttribute(path, "unix:mode", 0444, LinkOption.NOFOLLOW_LINKS);
    }
}
