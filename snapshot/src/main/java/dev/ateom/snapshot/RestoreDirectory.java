package dev.ateom.snapshot;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The per-restore source dir for CHV's vm.restore ({@code source_url} = a dir with config.json,
 * state.json and memory-ranges). The committed snapshot stays untouched, so any number of clones
 * restore from it: the dir gets its own rewritten config.json, and state.json and memory-ranges
 * as hard links to the snapshot's files (no bytes copied; the link also keeps memory-ranges alive
 * for an OnDemand-restored VM that still faults pages in from it if the snapshot is deleted).
 * Across filesystems it falls back to a reflink, then to a sparse copy (slow for big guests), so
 * put the dir on the state dir's filesystem, e.g. {@code <state>/sandboxes/<id>/restore}, not in
 * {@code /run} (tmpfs). CHV only reads these files; nobody may write them.
 */
public final class RestoreDirectory {
    public static final String CONFIG = "config.json";
    public static final String STATE = "state.json";
    public static final String MEMORY_RANGES = "memory-ranges";

    /**
     * @param sourceUrl        for vm.restore's {@code source_url}
     * @param memoryRangesHow  how memory-ranges got there (HARD_LINK unless the dir is on another filesystem)
     */
    public record Prepared(Path directory, String sourceUrl, FileCloner.Method stateHow, FileCloner.Method memoryRangesHow) {
    }

    private RestoreDirectory() {
    }

    /** Creates {@code directory} (must not exist) for restoring {@code snapshot} onto the given sockets. */
    public static Prepared prepare(SnapshotLayout snapshot, Path directory, RestoreSockets sockets) throws IOException {
        return prepare(snapshot, ChvConfig.read(snapshot.chvConfig()), directory, sockets);
    }

    /**
     * {@link #prepare(SnapshotLayout, Path, RestoreSockets)} with the snapshot's config.json as the caller read (and
     * checked) it: the restore dir's config is that one rewritten, whatever the file on disk holds by now.
     */
    public static Prepared prepare(SnapshotLayout snapshot, ChvConfig config, Path directory, RestoreSockets sockets) throws IOException {
        Path dir = create(directory);
        boolean done = false;
        try {
            Prepared prepared = fill(snapshot, config, dir, sockets);
            done = true;
            return prepared;
        } finally {
            if (!done) {
                TreeDeleter.delete(dir);
            }
        }
    }

    /**
     * Creates {@code directory} (must not exist) empty, for {@link #fill} later: a jailed VMM can be handed the dir
     * (bound into its jail) while it is filled, since CHV reads it only at vm.restore.
     *
     * @return the dir's absolute path
     */
    public static Path create(Path directory) throws IOException {
        Path dir = directory.toAbsolutePath().normalize();
        Files.createDirectory(dir);
        return dir;
    }

    /**
     * Fills the empty {@code directory} made by {@link #create} for restoring {@code snapshot} with {@code config} (as the
     * caller read and checked it) rewritten onto the given sockets. On failure the dir is left empty again.
     */
    public static Prepared fill(SnapshotLayout snapshot, ChvConfig config, Path directory, RestoreSockets sockets) throws IOException {
        Path dir = directory.toAbsolutePath().normalize();
        try (Stream<Path> entries = Files.list(dir)) {
            Optional<Path> there = entries.findFirst();
            if (there.isPresent()) throw new FileAlreadyExistsException(there.get().toString(), null, "a restore dir is filled only when empty");
        }
        boolean done = false;
        try {
            // no fsync: the dir only lives as long as one VM of this boot of the host; a crash removes it whole
            ChvConfigRewriter.rewriteToNewFile(config, dir.resolve(CONFIG), sockets);
            FileCloner.Method state = FileCloner.cloneOrCopy(snapshot.chvState(), dir.resolve(STATE));
            FileCloner.Method memory = FileCloner.cloneOrCopy(snapshot.memoryRanges(), dir.resolve(MEMORY_RANGES));
            done = true;
            return new Prepared(dir, "file://" + dir, state, memory);
        } finally {
            if (!done) {
                // it was empty: whatever has these names is this fill's (a copy cut short included)
                for (String file : List.of(CONFIG, STATE, MEMORY_RANGES)) Files.deleteIfExists(dir.resolve(file));
            }
        }
    }

    /** Removes a restore dir once CHV no longer needs it (after the VM stops; with OnDemand, not before). */
    public static void discard(Path directory) throws IOException {
        TreeDeleter.delete(directory);
    }
}
