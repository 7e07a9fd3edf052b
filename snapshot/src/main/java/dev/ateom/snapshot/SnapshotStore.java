package dev.ateom.snapshot;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * The committed snapshots under {@code <state>/snapshots/}. A snapshot is built in a hidden
 * staging dir ({@code .staging-<id>-<random>}) and appears under its id with one rename, so a
 * crash at any point leaves it complete or absent; leftover staging and half-deleted dirs are
 * swept when the store is opened (the daemon opens it once at start).
 */
public final class SnapshotStore {
    private static final System.Logger LOG = System.getLogger(SnapshotStore.class.getName());
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
    static final String STAGING_PREFIX = ".staging-";
    static final String DELETING_PREFIX = ".deleting-";
    private static final int RENAME_NOREPLACE = 1;

    private final Path stateDir;
    private final Path snapshotsDir;
    private final CommitStep.Observer observer;
    /**
     * Each snapshot's manifest as last parsed, with the bytes it was parsed from: a clone or resume reads its snapshot's
     * manifest at least once, and parsing it again is most of what that costs. The file is read on every {@link #get}
     * (one small read) and parsed only when its bytes differ; everything else {@code get} checks (the dir, the files
     * and their sizes) is checked every time. A commit leaves the manifest it wrote here with the bytes it wrote, so the
     * first read after it (a resume right after its suspend) does not parse either.
     */
    private final Map<String, ParsedManifest> manifests = new ConcurrentHashMap<>();

    private record ParsedManifest(byte[] bytes, Manifest manifest) {}

    private SnapshotStore(Path stateDir, CommitStep.Observer observer) {
        this.stateDir = stateDir;
        this.snapshotsDir = stateDir.resolve("snapshots");
        this.observer = observer;
    }

    /** Opens the store of a state dir, creating {@code snapshots/} and sweeping what a crash left behind. */
    public static SnapshotStore open(Path stateDir) throws IOException {
        return open(stateDir, CommitStep.Observer.NONE);
    }

    static SnapshotStore open(Path stateDir, CommitStep.Observer observer) throws IOException {
        SnapshotStore store = new SnapshotStore(stateDir.toAbsolutePath().normalize(), observer);
        Files.createDirectories(store.snapshotsDir);
        store.sweep();
        return store;
    }

    public Path snapshotsDirectory() {
        return snapshotsDir;
    }

    Path stateDirectory() {
        return stateDir;
    }

    CommitStep.Observer observer() {
        return observer;
    }

    /** Starts a snapshot: a fresh staging dir with an empty {@code chv/} for CHV's vm.snapshot. */
    public SnapshotStaging stage(String snapshotId) throws IOException {
        requireValidId(snapshotId);
        if (Files.exists(snapshotsDir.resolve(snapshotId), LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("snapshot " + snapshotId + " already exists in " + snapshotsDir);
        }
        Path staging = snapshotsDir.resolve(STAGING_PREFIX + snapshotId + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        Files.createDirectory(staging);
        try {
            Files.createDirectory(staging.resolve(SnapshotLayout.CHV_DIR));
        } catch (IOException e) {
            TreeDeleter.delete(staging);
            throw e;
        }
        return new SnapshotStaging(this, snapshotId, new SnapshotLayout(staging));
    }

    /** Ids of committed snapshots, sorted. */
    public List<String> list() throws IOException {
        List<String> ids = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(snapshotsDir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.startsWith(".") && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                    ids.add(name);
                }
            }
        }
        ids.sort(null);
        return ids;
    }

    /**
     * A committed snapshot with its manifest read and its files checked for presence and size
     * (cheap; {@link SnapshotInspector#verify} also checks content).
     */
    public Optional<Snapshot> get(String snapshotId) throws IOException {
        requireValidId(snapshotId);
        SnapshotLayout layout = new SnapshotLayout(snapshotsDir.resolve(snapshotId));
        if (!Files.isDirectory(layout.directory(), LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        Manifest manifest = manifestOf(snapshotId, layout.manifest());
        if (!manifest.snapshotId().equals(snapshotId)) {
            throw new SnapshotFormatException("snapshot dir " + layout.directory() + " holds the manifest of " + manifest.snapshotId());
        }
        requireKnownFiles(snapshotId, manifest);
        if (!Files.isDirectory(layout.chvDirectory(), LinkOption.NOFOLLOW_LINKS)) {
            throw new SnapshotFormatException("snapshot " + snapshotId + ": " + SnapshotLayout.CHV_DIR + " is not a directory");
        }
        for (Manifest.FileEntry file : manifest.files()) {
            Path path = layout.directory().resolve(file.path());
            if (!Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
                throw new SnapshotFormatException("snapshot " + snapshotId + " is missing " + file.path());
            }
            if (Files.size(path) != file.size()) {
                throw new SnapshotFormatException("snapshot " + snapshotId + ": " + file.path() + " is " + Files.size(path)
                        + " bytes, the manifest says " + file.size());
            }
        }
        return Optional.of(new Snapshot(snapshotId, layout, manifest));
    }

    /** Whether a committed snapshot dir of this id exists, usable or not (what {@link #read} answers), without reading it. */
    public boolean exists(String snapshotId) {
        requireValidId(snapshotId);
        return Files.isDirectory(snapshotsDir.resolve(snapshotId), LinkOption.NOFOLLOW_LINKS);
    }

    private Manifest manifestOf(String snapshotId, Path file) throws IOException {
        byte[] bytes = ManifestCodec.bytesOf(file);
        ParsedManifest parsed = manifests.get(snapshotId);
        if (parsed != null && Arrays.equals(parsed.bytes(), bytes)) return parsed.manifest();
        Manifest manifest = ManifestCodec.parse(file, bytes);
        manifests.put(snapshotId, new ParsedManifest(bytes, manifest));
        return manifest;
    }

    /**
     * Like {@link #get}, but a snapshot that cannot be used is answered with the reason instead of
     * an exception, so one corrupt snapshot never hides the others.
     *
     * @return empty when no snapshot dir of that id exists
     */
    public Optional<StoredSnapshot> read(String snapshotId) {
        try {
            return get(snapshotId).map(StoredSnapshot::usable);
        } catch (IOException | RuntimeException e) {
            return Optional.of(StoredSnapshot.unusable(snapshotId, e.getMessage()));
        }
    }

    /** Every committed snapshot dir, sorted by id, usable or not. */
    public List<StoredSnapshot> readAll() throws IOException {
        List<StoredSnapshot> all = new ArrayList<>();
        for (String id : list()) {
            read(id).ifPresent(all::add);
        }
        return all;
    }

    /**
     * The manifest lists exactly the snapshot's own files, each once: a path it names is only ever
     * one of those fixed names inside the snapshot dir (never {@code ../..} or anything else).
     */
    static void requireKnownFiles(String snapshotId, Manifest manifest) throws SnapshotFormatException {
        List<String> paths = manifest.files().stream().map(Manifest.FileEntry::path).toList();
        if (paths.size() != SnapshotLayout.CONTENT_FILES.size() || !paths.containsAll(SnapshotLayout.CONTENT_FILES)) {
            throw new SnapshotFormatException("snapshot " + snapshotId + ": the manifest must list exactly "
                    + SnapshotLayout.CONTENT_FILES + ", it lists " + paths);
        }
    }

    /** Removes a snapshot (hidden by one rename first, so a crash never leaves half of it visible). */
    public boolean delete(String snapshotId) throws IOException {
        requireValidId(snapshotId);
        Path dir = snapshotsDir.resolve(snapshotId);
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        Path doomed = snapshotsDir.resolve(DELETING_PREFIX + snapshotId + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        Files.move(dir, doomed, StandardCopyOption.ATOMIC_MOVE);
        manifests.remove(snapshotId);
        Fsync.directory(snapshotsDir);
        TreeDeleter.delete(doomed);
        return true;
    }

    /** Moves a finished staging dir to its id; fails rather than replace an existing snapshot. */
    void publish(Path staging, String snapshotId, byte[] manifestBytes, Manifest manifest) throws IOException {
        Path target = snapshotsDir.resolve(snapshotId);
        try {
            LibC.renameat2(LibC.AT_FDCWD, staging.toString(), LibC.AT_FDCWD, target.toString(), RENAME_NOREPLACE);
        } catch (LastErrorException e) {
            throw NativeFile.failure("renameat2(RENAME_NOREPLACE) of " + staging + " to", target, e);
        }
        // the next read (a resume right after this suspend, its clones) finds these bytes and skips the parse; any
        // other bytes there by then are parsed as always
        manifests.put(snapshotId, new ParsedManifest(manifestBytes.clone(), manifest));
    }

    private void sweep() throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(snapshotsDir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.startsWith(STAGING_PREFIX) || name.startsWith(DELETING_PREFIX)) {
                    LOG.log(Level.INFO, "removing {0} left by an interrupted snapshot or delete", entry);
                    TreeDeleter.delete(entry);
                }
            }
        }
    }

    /** Refuses a durable root that is, or contains, or lies inside a sandbox's system-info dir. */
    void refuseSystemInfo(Path durableRoot) throws IOException {
        Path root = durableRoot.toRealPath();
        Path sandboxes = stateDir.resolve("sandboxes");
        if (!Files.isDirectory(sandboxes)) {
            return;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(sandboxes)) {
            for (Path sandbox : entries) {
                Path systemInfo = sandbox.resolve("system-info");
                Path real;
                try {
                    real = systemInfo.toRealPath();
                } catch (NoSuchFileException gone) {
                    // none, or another sandbox deleted while this one is archived (a soak's checkpoint failed on one
                    // that existed a moment before): nothing there can overlap
                    continue;
                }
                if (root.startsWith(real) || real.startsWith(root)) {
                    throw new IOException("refusing to archive " + durableRoot + ": it overlaps the system-info dir " + systemInfo
                            + " (system-info is never part of a snapshot)");
                }
            }
        }
    }

    static void requireValidId(String snapshotId) {
        if (snapshotId == null || !ID.matcher(snapshotId).matches()) {
            throw new IllegalArgumentException("invalid snapshot id '" + snapshotId
                    + "': use 1-128 of [A-Za-z0-9._-], starting with a letter or digit");
        }
    }
}
