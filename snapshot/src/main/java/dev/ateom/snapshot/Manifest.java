package dev.ateom.snapshot;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code manifest.json}: what a committed snapshot holds. The format is documented in
 * snapshot/README.md; a field this version does not know is an error ("newer format"), never ignored.
 *
 * @param shares virtio-fs tag → share kind (e.g. "ateDurable" → "durable"), one per fs[] entry of config.json
 * @param files  every file of the snapshot except manifest.json, path relative to the snapshot dir, sorted
 * @param annotations opaque key → value strings the snapshot's maker attaches (the daemon keeps the source
 *                    sandbox's spec here, which a clone needs); absent in older manifests, read as empty
 */
@JsonPropertyOrder({"formatVersion", "snapshotId", "createdAt", "source", "chvVersion", "vm", "shares", "memoryRanges",
    "durableArchive", "files", "annotations"})
public record Manifest(int formatVersion,
                       String snapshotId,
                       Instant createdAt,
                       SourceSandbox source,
                       String chvVersion,
                       VmSizing vm,
                       Map<String, String> shares,
                       MemoryRanges memoryRanges,
                       DurableArchiveInfo durableArchive,
                       List<FileEntry> files,
                       Map<String, String> annotations) {
    public static final int FORMAT_VERSION = 1;

    public Manifest(int formatVersion, String snapshotId, Instant createdAt, SourceSandbox source, String chvVersion, VmSizing vm,
                    Map<String, String> shares, MemoryRanges memoryRanges, DurableArchiveInfo durableArchive, List<FileEntry> files) {
        this(formatVersion, snapshotId, createdAt, source, chvVersion, vm, shares, memoryRanges, durableArchive, files, Map.of());
    }

    public Manifest {
        Objects.requireNonNull(snapshotId, "snapshotId");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(chvVersion, "chvVersion");
        Objects.requireNonNull(vm, "vm");
        shares = Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(shares, "shares")));
        Objects.requireNonNull(memoryRanges, "memoryRanges");
        Objects.requireNonNull(durableArchive, "durableArchive");
        files = List.copyOf(Objects.requireNonNull(files, "files"));
        annotations = annotations == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(annotations));
    }

    public Optional<FileEntry> file(String path) {
        return files.stream().filter(f -> f.path().equals(path)).findFirst();
    }

    /** The sandbox the snapshot was taken from, with the identity it had. */
    @JsonPropertyOrder({"sandboxId", "name", "namespace", "uid"})
    public record SourceSandbox(String sandboxId, String name, String namespace, String uid) {
        public SourceSandbox {
            Objects.requireNonNull(sandboxId, "source.sandboxId");
            Objects.requireNonNull(name, "source.name");
            Objects.requireNonNull(namespace, "source.namespace");
            Objects.requireNonNull(uid, "source.uid");
        }
    }

    /** From config.json: cpus.boot_vcpus and memory.size. */
    public record VmSizing(int vcpus, long memoryBytes) {
    }

    /** {@code layout} is "sparse" when holes stand for zero pages, "dense" when every byte is allocated. */
    @JsonPropertyOrder({"layout", "apparentBytes", "allocatedBytes"})
    public record MemoryRanges(String layout, long apparentBytes, long allocatedBytes) {
        public static final String SPARSE = "sparse";
        public static final String DENSE = "dense";

        public MemoryRanges {
            if (!SPARSE.equals(layout) && !DENSE.equals(layout)) {
                throw new IllegalArgumentException("memoryRanges.layout must be sparse or dense, not " + layout);
            }
        }

        static MemoryRanges of(DiskUsage usage) {
            return new MemoryRanges(usage.sparse() ? SPARSE : DENSE, usage.apparentBytes(), usage.allocatedBytes());
        }
    }

    /** {@code contentBytes}: file data inside the archive (sparse files count their data extents). */
    @JsonPropertyOrder({"path", "compression", "entries", "contentBytes"})
    public record DurableArchiveInfo(String path, String compression, long entries, long contentBytes) {
        public DurableArchiveInfo {
            Objects.requireNonNull(path, "durableArchive.path");
            Objects.requireNonNull(compression, "durableArchive.compression");
        }
    }

    /**
     * One file of the snapshot. {@code digest} names how {@code sha256} was computed: {@code "sha256"} (the
     * default, also when absent) over the content, or {@link MemoryPageDigest#ALGORITHM} for guest memory.
     */
    @JsonPropertyOrder({"path", "size", "sha256", "digest"})
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record FileEntry(String path, long size, String sha256, String digest) {
        public static final String CONTENT_SHA256 = "sha256";

        public FileEntry {
            Objects.requireNonNull(path, "files[].path");
            Objects.requireNonNull(sha256, "files[].sha256");
            if (digest != null && !digest.equals(CONTENT_SHA256) && !digest.equals(MemoryPageDigest.ALGORITHM)) {
                throw new IllegalArgumentException("files[].digest '" + digest + "' is not one this ateom knows (newer format?)");
            }
        }

        public FileEntry(String path, long size, String sha256) {
            this(path, size, sha256, null);
        }

        /** The digest of {@code file} the way this entry was computed. */
        public String digestOf(Path file) throws IOException {
            return MemoryPageDigest.ALGORITHM.equals(digest) ? MemoryPageDigest.of(file) : Sha256.of(file);
        }
    }
}
