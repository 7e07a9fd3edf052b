package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.timing.OperationProgress;
import dev.ateom.snapshot.ArchiveCompression;
import dev.ateom.snapshot.ArchiveProgress;
import dev.ateom.snapshot.ChvConfigPolicy;
import dev.ateom.snapshot.DiskUsage;
import dev.ateom.snapshot.DurableArchive;
import dev.ateom.snapshot.ExtractOptions;
import dev.ateom.snapshot.Manifest;
import dev.ateom.snapshot.RestoreDirectory;
import dev.ateom.snapshot.RestoreSockets;
import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotInspector;
import dev.ateom.snapshot.SnapshotLayout;
import dev.ateom.snapshot.SnapshotMetadata;
import dev.ateom.snapshot.SnapshotStaging;
import dev.ateom.snapshot.SnapshotStore;
import dev.ateom.snapshot.StoredSnapshot;
import dev.ateom.virtiofsd.ShareKind;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

/**
 * The daemon's view of the snapshot store: starts and commits snapshots of sandboxes (with the sandbox spec
 * a clone needs), opens them for restore, lists, inspects and deletes them. Errors become API problems.
 */
public final class SnapshotCatalog {
    private static final System.Logger LOG = System.getLogger(SnapshotCatalog.class.getName());
    /** Manifest annotation holding the source sandbox's spec, so a clone knows the guest, sizing and volumes. */
    static final String SPEC_ANNOTATION = "ateom.dev/sandbox-spec";

    private final SnapshotStore store;
    private final Path sandboxesDir;
    private Predicate<String> protectedSnapshot = id -> false;
    private SnapshotFetcher fetcher = SnapshotFetcher.NONE;
    private Map<String, String> hostAnnotations = Map.of();
    private final Set<String> reservedNames = ConcurrentHashMap.newKeySet();

    public SnapshotCatalog(SnapshotStore store, Path sandboxesDir) {
        this.store = store;
        this.sandboxesDir = sandboxesDir;
    }

    /** Snapshots that must not be deleted without {@code force}: the latest of a suspended sandbox. */
    public void protect(Predicate<String> isProtected) { this.protectedSnapshot = isProtected; }

    /** Where snapshots that are not on this host come from (the snapshot store); by default nowhere. */
    public void fetchMissingWith(SnapshotFetcher fetcher) { this.fetcher = fetcher; }

    /** Annotations every snapshot taken from now on records about this host (the CPU, for restore hosts to compare). */
    public void annotateWith(Map<String, String> annotations) { this.hostAnnotations = Map.copyOf(annotations); }

    /** A committed snapshot opened for restore, with the spec of the sandbox it was taken from. */
    public record SnapshotHandle(String id, Snapshot snapshot, SandboxSpec sandboxSpec) {}

    /**
     * Summary row for listings. An unusable snapshot (corrupt or tampered dir) has {@code usable}
     * false, its {@code problem}, and nulls/zeros for what could not be read; it can still be deleted.
     * {@code name} and {@code labels} are what the suspend or checkpoint asked for; {@code parentSnapshotId} the
     * snapshot the sandbox's VM had been restored from when this one was taken (null: it had booted).
     */
    public record SnapshotSummary(String id, String sourceSandboxId, String sourceName, Instant createdAt, long sizeBytes,
                                  long allocatedBytes, boolean usable, String problem, String name, Map<String, String> labels,
                                  String parentSnapshotId) {}

    // ------------------------------------------------------------------ making snapshots

    public Staging begin(String sandboxId) { return begin(sandboxId, SnapshotTags.NONE); }

    /** A snapshot of {@code sandboxId} that will carry {@code tags} (checked by the caller, see {@link #reserveName}). */
    public Staging begin(String sandboxId, SnapshotTags tags) {
        String id = sandboxId + "-" + HexFormat.of().formatHex(randomBytes(4));
        try {
            return new Staging(store.stage(id), tags);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a staging dir for a snapshot of " + sandboxId, e);
        }
    }

    /** A snapshot being built; see {@link SnapshotStaging}. */
    public final class Staging {
        private final SnapshotStaging staging;
        private final SnapshotTags tags;

        Staging(SnapshotStaging staging, SnapshotTags tags) {
            this.staging = staging;
            this.tags = tags;
        }

        public Path chvDir() { return staging.chvDirectory(); }

        public void archiveDurable(Path durableDir) {
            try {
                staging.archiveDurable(durableDir, ArchiveCompression.NONE, alsoToOperation(progressLog(staging.snapshotId()), durableDir));
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
                String spec = ApiJson.mapper().writeValueAsString(record.spec());
                Map<String, String> annotations = new LinkedHashMap<>(hostAnnotations);
                annotations.put(SPEC_ANNOTATION, spec);
                // the parent: what the running VM was restored from (its runtime says so), not the sandbox's latest snapshot
                SnapshotAnnotations.put(annotations, tags, record.runtime() == null ? null : record.runtime().restoredFromSnapshotId());
                return staging.commit(new SnapshotMetadata(source, chvVersion, shares, annotations)).id();
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

    // ------------------------------------------------------------------ using snapshots

    /** Whether the snapshot is on this host (usable or not: an unusable one is reported by {@link #open}, never pulled over). */
    public boolean isLocal(String id) {
        return SandboxSpecValidator.SNAPSHOT_ID.matcher(id).matches() && store.read(id).isPresent();
    }

    /** Whether {@link #ensureLocal} would pull the snapshot from the store (it is not here and a store is configured). */
    public boolean wouldPull(String id) {
        return fetcher != SnapshotFetcher.NONE && SandboxSpecValidator.SNAPSHOT_ID.matcher(id).matches() && !isLocal(id);
    }

    /**
     * Makes sure the snapshot is on this host, pulling it from the store for {@code purpose} if it is not (see
     * {@link SnapshotFetcher}).
     *
     * @return how long the pull took, if it was pulled now (it was not here before), so a refused request can remove
     *         what it brought and a clone can report the pull among its timings
     */
    public Optional<Duration> ensureLocal(String id, boolean allowCpuMismatch, PullFor purpose) {
        if (!SandboxSpecValidator.SNAPSHOT_ID.matcher(id).matches()) throw NotFoundException.snapshot(id);
        if (isLocal(id)) return Optional.empty();
        long started = System.nanoTime();
        fetcher.fetch(id, allowCpuMismatch, purpose);
        return Optional.of(Duration.ofNanos(System.nanoTime() - started));
    }

    /** {@link #open} plus the config.json check, for a resume (whose spec was validated when the sandbox was made). */
    public SnapshotHandle openForRestore(String id) {
        SnapshotHandle handle = open(id);
        requireConfigAsWritten(handle);
        return handle;
    }

    public SnapshotHandle open(String id) {
        StoredSnapshot stored = read(id);
        Snapshot snapshot = stored.snapshot()
                .orElseThrow(() -> new SnapshotUnusableException(id, "is unusable: " + stored.problem().orElse("unreadable")));
        String spec = snapshot.manifest().annotations().get(SPEC_ANNOTATION);
        if (spec == null) {
            throw new SnapshotUnusableException(id, "has no sandbox spec (annotation " + SPEC_ANNOTATION + "); it was not made by ateom");
        }
        SnapshotHandle handle;
        try {
            handle = new SnapshotHandle(id, snapshot, ApiJson.mapper().readValue(spec, SandboxSpec.class));
        } catch (JsonProcessingException e) {
            throw new SnapshotUnusableException(id, "holds an unreadable sandbox spec: " + e.getOriginalMessage());
        }
        return handle;
    }

    /** A per-restore source dir: rewritten config.json, state and memory hard-linked from the snapshot. */
    public Path prepareRestore(SnapshotHandle handle, Path restoreDir, Map<String, Path> socketsByTag, Path vsock, Path console) {
        try {
            Files.createDirectories(restoreDir.getParent());
            return RestoreDirectory.prepare(handle.snapshot().layout(), restoreDir,
                    new RestoreSockets(socketsByTag, Optional.of(vsock), Optional.of(console), Optional.empty())).directory();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare restore dir " + restoreDir + " from snapshot " + handle.id(), e);
        }
    }

    /**
     * config.json can be edited on disk and CHV opens every host path in it: it must be what ateom writes for the
     * stored spec (payload, sizing, shares; no disks, pmem, devices or other paths). Called before anything is
     * started for a restore, so a refusal leaves nothing behind.
     */
    public void requireConfigAsWritten(SnapshotHandle handle) {
        SandboxSpec spec = handle.sandboxSpec();
        List<String> problems;
        try {
            problems = ChvConfigPolicy.check(handle.snapshot().layout().chvConfig(), new ChvConfigPolicy.Expected(
                    spec.kernel(), Optional.ofNullable(spec.initramfs()), spec.vcpus() == null ? 0 : spec.vcpus(),
                    spec.memoryMib() == null ? 0 : (long) spec.memoryMib() << 20, spec.hasNetwork()));
        } catch (IOException e) {
            throw new SnapshotUnusableException(handle.id(), "has an unreadable config.json: " + e.getMessage());
        }
        if (!problems.isEmpty()) {
            throw new SnapshotUnusableException(handle.id(), "has a config.json ateom did not write: " + String.join("; ", problems));
        }
    }

    /** Lays the snapshot's durable archive at {@code target} (which must not exist), complete or not at all. */
    public void extractDurable(SnapshotHandle handle, Path target) {
        try {
            DurableArchive.extract(handle.snapshot().layout().durableArchive(), target, extractOptions(handle)
                    .withProgress(toOperation(handle.snapshot().manifest().durableArchive().contentBytes())));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract the durable archive of snapshot " + handle.id() + " into " + target, e);
        }
    }

    /** Replaces an existing durable dir with the snapshot's archive, atomically (the old tree is swapped out, then removed). */
    public void replaceDurable(SnapshotHandle handle, Path durableDir) {
        try {
            DurableArchive.extract(handle.snapshot().layout().durableArchive(), durableDir, extractOptions(handle).replacingExisting());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lay the durable archive of snapshot " + handle.id() + " over " + durableDir, e);
        }
    }

    /** An archive holding more entries than its manifest lists is refused, so extraction memory and time stay bounded. */
    private static ExtractOptions extractOptions(SnapshotHandle handle) {
        return ExtractOptions.DEFAULT.withMaxEntries(handle.snapshot().manifest().durableArchive().entries());
    }

    /** Removes the hidden trees a durable extraction interrupted by a crash left in {@code sandboxDir}. */
    public void removeInterruptedExtractions(Path sandboxDir) {
        try {
            int removed = DurableArchive.removeInterruptedExtractions(sandboxDir);
            if (removed > 0) LOG.log(System.Logger.Level.INFO, "removed " + removed + " interrupted extraction(s) in " + sandboxDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot sweep interrupted extractions in " + sandboxDir, e);
        }
    }

    // ------------------------------------------------------------------ listing, inspection, deletion

    public List<SnapshotSummary> list() { return list(SnapshotFilter.ALL); }

    /** The snapshots {@code filter} matches (unusable ones only with an empty filter). */
    public List<SnapshotSummary> list(SnapshotFilter filter) {
        List<SnapshotSummary> out = new ArrayList<>();
        try {
            for (StoredSnapshot stored : store.readAll()) {
                SnapshotSummary summary = stored.snapshot().map(SnapshotCatalog::summary)
                        .orElseGet(() -> new SnapshotSummary(stored.id(), null, null, null, 0, 0, false, stored.problem().orElse(null),
                                null, Map.of(), null));
                if (filter.matches(summary)) out.add(summary);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list snapshots", e);
        }
        return out;
    }

    public Map<String, Object> inspect(String id, boolean verify) {
        StoredSnapshot stored = read(id);
        Map<String, Object> report = new LinkedHashMap<>();
        if (!stored.isUsable()) {
            report.put("id", id);
            report.put("usable", false);
            report.put("problems", List.of(stored.problem().orElse("unreadable")));
            return report;
        }
        Snapshot snapshot = stored.snapshot().orElseThrow();
        try {
            SnapshotInspector.Summary summary = SnapshotInspector.summarize(snapshot);
            report.put("id", id);
            SnapshotTags tags = SnapshotAnnotations.tags(snapshot.manifest());
            report.put("name", tags.name());
            report.put("labels", tags.labels());
            report.put("parentSnapshotId", SnapshotAnnotations.parent(snapshot.manifest()));
            report.put("summary", summary);
            Optional<Path> systemInfoDir = Optional.of(sandboxesDir.resolve(snapshot.manifest().source().sandboxId()).resolve("system-info"))
                    .filter(Files::isDirectory);
            report.put("systemInfoCheck", SnapshotInspector.checkNoSystemInfo(snapshot, systemInfoDir));
            if (verify) report.put("verification", SnapshotInspector.verify(snapshot));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot inspect snapshot " + id, e);
        }
        return report;
    }

    public void delete(String id, boolean force) {
        read(id); // 404 when absent; a corrupt snapshot can still be deleted
        if (!force && protectedSnapshot.test(id)) {
            throw new SnapshotInUseException(id);
        }
        deleteIfPresent(id);
    }

    public void deleteIfPresent(String id) {
        try {
            if (store.delete(id)) LOG.log(System.Logger.Level.INFO, "deleted snapshot " + id);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete snapshot " + id, e);
        }
    }

    /** Committed snapshots of {@code sandboxId} not in {@code known}, newest last (recovery after a crash mid-suspend). */
    public List<String> unrecordedSnapshotsOf(String sandboxId, Set<String> known) {
        List<Snapshot> found = new ArrayList<>();
        try {
            for (String id : store.list()) {
                if (known.contains(id)) continue;
                Optional<StoredSnapshot> stored = store.read(id);
                if (stored.isPresent() && !stored.get().isUsable()) {
                    LOG.log(System.Logger.Level.WARNING, "snapshot " + id + " is unusable and skipped: " + stored.get().problem().orElse(""));
                    continue;
                }
                stored.flatMap(StoredSnapshot::snapshot).filter(s -> s.manifest().source().sandboxId().equals(sandboxId)).ifPresent(found::add);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list snapshots", e);
        }
        found.sort(Comparator.comparing(s -> s.manifest().createdAt()));
        return found.stream().map(Snapshot::id).toList();
    }

    /**
     * Holds {@code name} for a snapshot about to be taken, until the returned reservation is closed (after the commit,
     * when the snapshot itself holds it, or after a failure): refused when a snapshot on this host has it or another
     * operation holds it, so two concurrent suspends cannot both take it. A null name reserves nothing.
     */
    public NameReservation reserveName(String name, String sandboxId, SandboxState state) {
        if (name == null) return () -> { };
        if (!reservedNames.add(name)) throw new SnapshotNameTakenException(name, sandboxId, state);
        try {
            if (!list(new SnapshotFilter(null, name, Map.of())).isEmpty()) throw new SnapshotNameTakenException(name, sandboxId, state);
        } catch (RuntimeException e) {
            reservedNames.remove(name);
            throw e;
        }
        return () -> reservedNames.remove(name);
    }

    /** A reserved snapshot name; closing it gives the name back (a committed snapshot keeps it by holding it). */
    public interface NameReservation extends AutoCloseable {
        @Override
        void close();
    }

    private StoredSnapshot read(String id) {
        if (!SandboxSpecValidator.SNAPSHOT_ID.matcher(id).matches()) throw NotFoundException.snapshot(id);
        return store.read(id).orElseThrow(() -> NotFoundException.snapshot(id));
    }

    private static SnapshotSummary summary(Snapshot s) {
        long size = s.manifest().files().stream().mapToLong(Manifest.FileEntry::size).sum();
        long allocated = 0;
        for (String file : SnapshotLayout.CONTENT_FILES) {
            try {
                allocated += DiskUsage.of(s.layout().directory().resolve(file)).allocatedBytes();
            } catch (IOException e) {
                // a missing file shows as 0 here; inspect and verify report it
            }
        }
        SnapshotTags tags = SnapshotAnnotations.tags(s.manifest());
        return new SnapshotSummary(s.id(), s.manifest().source().sandboxId(), s.manifest().source().name(),
                s.manifest().createdAt(), size, allocated, true, null, tags.name(), tags.labels(), SnapshotAnnotations.parent(s.manifest()));
    }

    /** Long archives show progress: a log line every 256 MiB. */
    private static ArchiveProgress progressLog(String snapshotId) {
        long step = 256L << 20;
        long[] next = {step};
        return (bytes, entries) -> {
            if (bytes >= next[0]) {
                next[0] = bytes + step;
                LOG.log(System.Logger.Level.INFO, "snapshot " + snapshotId + ": archived " + (bytes >> 20) + " MiB in " + entries + " entries");
            }
        };
    }

    /** An asynchronous operation also sees the archive's bytes, of a total counted first (see {@link DurableSizeEstimate}). */
    private static ArchiveProgress alsoToOperation(ArchiveProgress log, Path durableDir) {
        if (OperationProgress.current() == OperationProgress.NONE) return log;
        ArchiveProgress operation = toOperation(DurableSizeEstimate.of(durableDir));
        return (bytes, entries) -> {
            log.onProgress(bytes, entries);
            operation.onProgress(bytes, entries);
        };
    }

    /** The current operation's bytes of the step, of {@code total} (-1: unknown). */
    private static ArchiveProgress toOperation(long total) {
        OperationProgress operation = OperationProgress.current();
        return operation == OperationProgress.NONE ? ArchiveProgress.NONE : (bytes, entries) -> operation.bytes(bytes, total);
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }
}
