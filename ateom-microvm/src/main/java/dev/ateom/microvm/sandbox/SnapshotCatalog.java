package dev.ateom.microvm.sandbox;

import dev.ateom.snapshot.ChvConfig;
import dev.ateom.snapshot.DiskUsage;
import dev.ateom.snapshot.Manifest;
import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotInspector;
import dev.ateom.snapshot.SnapshotLayout;
import dev.ateom.snapshot.SnapshotStore;
import dev.ateom.snapshot.StoredSnapshot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The daemon's view of the snapshot store: starts and commits snapshots of sandboxes (with the sandbox spec
 * a clone needs), opens them for restore, lists, inspects and deletes them. Errors become API problems.
 */
public final class SnapshotCatalog {
    private static final System.Logger LOG = System.getLogger(SnapshotCatalog.class.getName());
    private final SnapshotStore store;
    private final SnapshotSpecs specs;
    private final Path sandboxesDir;
    private Predicate<String> protectedSnapshot = id -> false;
    private final List<Consumer<String>> deleteListeners = new CopyOnWriteArrayList<>();
    private SnapshotFetcher fetcher = SnapshotFetcher.NONE;
    private final Set<String> reservedNames = ConcurrentHashMap.newKeySet();

    public SnapshotCatalog(SnapshotStore store, SnapshotSpecs specs, Path sandboxesDir) {
        this.store = store;
        this.specs = specs;
        this.sandboxesDir = sandboxesDir;
    }

    /** Snapshots that must not be deleted without {@code force}: the latest of a suspended sandbox. */
    public void protect(Predicate<String> isProtected) { this.protectedSnapshot = isProtected; }

    /** Called with a snapshot's id once it is deleted from this host (whatever asked for the delete). */
    public void onDelete(Consumer<String> listener) { deleteListeners.add(listener); }

    /** Where snapshots that are not on this host come from (the snapshot store); by default nowhere. */
    public void fetchMissingWith(SnapshotFetcher fetcher) { this.fetcher = fetcher; }

    /**
     * A committed snapshot opened for restore, with the spec of the sandbox it was taken from.
     *
     * @param checkedConfig its config.json as {@link SnapshotRestores#requireConfigAsWritten} read and accepted it: the
     *                      one a restore dir is made from (empty until then)
     */
    public record SnapshotHandle(String id, Snapshot snapshot, SandboxSpec sandboxSpec, Optional<ChvConfig> checkedConfig) {
        public SnapshotHandle(String id, Snapshot snapshot, SandboxSpec sandboxSpec) {
            this(id, snapshot, sandboxSpec, Optional.empty());
        }

        SnapshotHandle withCheckedConfig(ChvConfig config) {
            return new SnapshotHandle(id, snapshot, sandboxSpec, Optional.of(config));
        }
    }

    /**
     * Summary row for listings. An unusable snapshot (corrupt or tampered dir) has {@code usable}
     * false, its {@code problem}, and nulls/zeros for what could not be read; it can still be deleted.
     * {@code name} and {@code labels} are what the suspend or checkpoint asked for; {@code parentSnapshotId} the
     * snapshot the sandbox's VM had been restored from when this one was taken (null: it had booted).
     */
    public record SnapshotSummary(String id, String sourceSandboxId, String sourceName, Instant createdAt, long sizeBytes,
                                  long allocatedBytes, boolean usable, String problem, String name, Map<String, String> labels,
                                  String parentSnapshotId) {}

    // ------------------------------------------------------------------ using snapshots

    /** Whether the snapshot is on this host (usable or not: an unusable one is reported by {@link #open}, never pulled over). */
    public boolean isLocal(String id) {
        return SandboxSpecValidator.SNAPSHOT_ID.matcher(id).matches() && store.exists(id);
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
        return SnapshotRestores.requireConfigAsWritten(open(id));
    }

    public SnapshotHandle open(String id) {
        StoredSnapshot stored = read(id);
        Snapshot snapshot = stored.snapshot()
                .orElseThrow(() -> new SnapshotUnusableException(id, "is unusable: " + stored.problem().orElse("unreadable")));
        return new SnapshotHandle(id, snapshot, specs.of(snapshot));
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
            specs.forget(id);
            deleteListeners.forEach(listener -> listener.accept(id));
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


}
