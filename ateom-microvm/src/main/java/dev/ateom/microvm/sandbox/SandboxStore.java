package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.PrivateDirs;
import dev.ateom.microvm.json.ApiJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.stream.Stream;

import static java.lang.System.Logger.Level.ERROR;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Sandbox records on disk: {@code <state>/sandboxes/<id>/sandbox.json}, replaced atomically
 * (temp file, fsync, rename, fsync of the directory) so a crash leaves the old or the new record, never half. A
 * {@link Durability#SYNCED_AFTER} save renames first and fsyncs right after, off the caller's path; a
 * {@link Durability#BESIDE} save is written on a thread of its own, and the sandbox's next save or delete waits for it
 * (docs/decisions.md, "Resume and clone at the hypervisor's speed"). The saves of one sandbox are not concurrent: its
 * callers serialize them (Transitions, on the sandbox's entry).
 */
public final class SandboxStore {
    private static final System.Logger LOG = System.getLogger(SandboxStore.class.getName());
    private static final String RECORD = "sandbox.json";
    private static final Set<PosixFilePermission> OWNER_READ_WRITE = PosixFilePermissions.fromString("rw-------");
    private static final String LEGACY_DELETE_WITH_SNAPSHOTS = "deleteWithSnapshots";
    private final Path sandboxesDir;
    private final ObjectMapper json = ApiJson.mapper();
    /** The {@link Durability#BESIDE} save still being written, per sandbox: what its next save or delete waits for. */
    private final Map<String, CompletableFuture<Void>> beside = new ConcurrentHashMap<>();

    /** Writes the {@link Durability#BESIDE} saves: a virtual thread each, or what a test drives. */
    private final Executor besideWriter;

    public SandboxStore(Path sandboxesDir) { this(sandboxesDir, task -> Thread.ofVirtual().name("record-save").start(task)); }

    SandboxStore(Path sandboxesDir, Executor besideWriter) {
        this.sandboxesDir = sandboxesDir;
        this.besideWriter = besideWriter;
    }

    public Path sandboxDir(String id) { return sandboxesDir.resolve(id); }

    /** How far a {@link #save} goes before it returns. */
    public enum Durability {
        /** fsynced (the file, then its directory): on disk before the save returns, also across a host crash. */
        SYNCED,
        /**
         * Renamed into place, so a restarted daemon reads it (the page cache survives a daemon crash), and fsynced
         * a moment later on a virtual thread: only a host crash in those milliseconds can lose it.
         */
        SYNCED_AFTER,
        /**
         * As {@link #SYNCED_AFTER}, but all of it on a virtual thread: the save returns at once, and the sandbox's
         * next save (or delete) waits until this one is renamed into place, so the records on disk still follow one
         * another in order. A daemon crash before the rename loses it; a failure is logged (the next save, a newer
         * record, reports its own).
         */
        BESIDE
    }

    /** Replaces the record, fsynced before this returns. */
    public void save(SandboxRecord record) { save(record, Durability.SYNCED); }

    public void save(SandboxRecord record, Durability durability) {
        awaitBeside(record.id());
        if (durability == Durability.BESIDE) {
            CompletableFuture<Void> written = new CompletableFuture<>();
            beside.put(record.id(), written);
            besideWriter.execute(() -> {
                try {
                    write(record, false);
                } catch (RuntimeException e) {
                    LOG.log(WARNING, e.getMessage() + "; the sandbox's next save writes a newer record");
                } finally {
                    beside.remove(record.id(), written);
                    written.complete(null);
                }
            });
            return;
        }
        write(record, durability == Durability.SYNCED);
    }

    /** Until every {@link Durability#BESIDE} save begun so far is done: at a clean stop, the records as last saved. */
    public void awaitBesideSaves() { List.copyOf(beside.values()).forEach(CompletableFuture::join); }

    /** Until the sandbox's {@link Durability#BESIDE} save, if one is being written, is done. */
    private void awaitBeside(String id) {
        CompletableFuture<Void> written = beside.get(id);
        if (written != null) written.join();
    }

    private void write(SandboxRecord record, boolean synced) {
        Path dir = sandboxDir(record.id());
        Path target = dir.resolve(RECORD);
        Path tmp = dir.resolve(RECORD + ".tmp");
        try {
            PrivateDirs.ensure(dir);
            Files.deleteIfExists(tmp);
            try (FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(OWNER_READ_WRITE))) {
                ch.write(ByteBuffer.wrap(json.writerWithDefaultPrettyPrinter().writeValueAsBytes(record)));
                if (synced) ch.force(true);
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            if (synced) forceDirectory(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write record of sandbox " + record.id() + " to " + target, e);
        }
        if (!synced) Thread.ofVirtual().name("record-sync-" + record.id()).start(() -> syncQuietly(target));
    }

    /**
     * The fsync a {@link Durability#SYNCED_AFTER} save left for later: of whatever record is in place by now (a later
     * save's, which makes its own durable anyway) and of the directory that names it.
     */
    private static void syncQuietly(Path record) {
        try (FileChannel ch = FileChannel.open(record, StandardOpenOption.READ)) {
            ch.force(true);
            forceDirectory(record.getParent());
        } catch (NoSuchFileException e) {
            // the sandbox was deleted meanwhile
        } catch (IOException e) {
            LOG.log(WARNING, "cannot fsync " + record + ": " + e.getMessage());
        }
    }

    private static void forceDirectory(Path dir) throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    /** Every readable record; unreadable ones are logged and skipped (their dir is left for an operator). */
    public List<SandboxRecord> loadAll() {
        List<SandboxRecord> records = new ArrayList<>();
        if (!Files.isDirectory(sandboxesDir)) return records;
        try (Stream<Path> dirs = Files.list(sandboxesDir)) {
            for (Path dir : dirs.sorted().toList()) {
                Path file = dir.resolve(RECORD);
                try {
                    records.add(read(file));
                } catch (NoSuchFileException e) {
                    LOG.log(WARNING, "sandbox dir " + dir + " has no " + RECORD + "; leaving it alone");
                } catch (IOException e) {
                    if (!Files.exists(file)) {
                        LOG.log(WARNING, "sandbox dir " + dir + " has no " + RECORD + "; leaving it alone");
                    } else {
                        LOG.log(ERROR, "cannot read " + file + ": " + e.getMessage());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + sandboxesDir, e);
        }
        return records;
    }

    /** A record as written by this version or an earlier one (see {@link #upgrade}). */
    SandboxRecord read(Path file) throws IOException {
        JsonNode tree = json.readTree(file.toFile());
        if (tree instanceof ObjectNode record) upgrade(record);
        return json.treeToValue(tree, SandboxRecord.class);
    }

    /**
     * Records written before the delete request had a field of its own said "delete with the snapshots" by
     * {@code lastOperation: deleteWithSnapshots}; they still load, as a delete with {@code deleteSnapshots}.
     * The field is written only when true, so its absence means false; so is {@code inStore} (absent in records
     * written before it existed: those sandboxes were never marked).
     */
    private static void upgrade(ObjectNode record) {
        boolean legacyDelete = LEGACY_DELETE_WITH_SNAPSHOTS.equals(record.path("lastOperation").asText());
        if (legacyDelete) record.put("lastOperation", Operation.DELETE.wireName());
        record.put("deleteSnapshots", legacyDelete || record.path("deleteSnapshots").asBoolean(false));
        record.put("inStore", record.path("inStore").asBoolean(false));
    }

    /** The directories under {@code sandboxes/} whose name is none of {@code sandboxIds}: no sandbox owns them. */
    public List<Path> orphanDirs(Set<String> sandboxIds) {
        if (!Files.isDirectory(sandboxesDir)) return List.of();
        try (Stream<Path> dirs = Files.list(sandboxesDir)) {
            return dirs.filter(dir -> !sandboxIds.contains(dir.getFileName().toString())).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + sandboxesDir, e);
        }
    }

    /** Whether the sandbox's record is on disk (a create that could not persist one left no sandbox). */
    public boolean hasRecord(String id) {
        return Files.exists(sandboxDir(id).resolve(RECORD), LinkOption.NOFOLLOW_LINKS);
    }

    public void deleteAll(String id) {
        // a save still being written would make the dir again
        awaitBeside(id);
        TreeRemoval.removeRecursively(sandboxDir(id));
    }

    /** {@link #deleteAll} on a failure path: what cannot be removed is logged, the failure being reported is kept. */
    public void deleteAllQuietly(String id) {
        try {
            deleteAll(id);
        } catch (RuntimeException e) {
            LOG.log(WARNING, "cannot remove the directory of sandbox " + id + ": " + e.getMessage());
        }
    }
}
