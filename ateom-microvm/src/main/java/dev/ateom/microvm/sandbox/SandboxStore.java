package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ateom.microvm.json.ApiJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Sandbox records on disk: {@code <state>/sandboxes/<id>/sandbox.json}, replaced atomically
 * (temp file, fsync, rename, fsync of the directory) so a crash leaves the old or the new record, never half.
 */
public final class SandboxStore {
    private static final System.Logger LOG = System.getLogger(SandboxStore.class.getName());
    private static final String RECORD = "sandbox.json";
    private final Path sandboxesDir;
    private final ObjectMapper json = ApiJson.mapper();

    public SandboxStore(Path sandboxesDir) { this.sandboxesDir = sandboxesDir; }

    public Path sandboxDir(String id) { return sandboxesDir.resolve(id); }

    public void save(SandboxRecord record) {
        Path dir = sandboxDir(record.id());
        Path target = dir.resolve(RECORD);
        Path tmp = dir.resolve(RECORD + ".tmp");
        try {
            Files.createDirectories(dir);
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(java.nio.ByteBuffer.wrap(json.writerWithDefaultPrettyPrinter().writeValueAsBytes(record)));
                ch.force(true);
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write record of sandbox " + record.id() + " to " + target, e);
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
                    records.add(json.readValue(file.toFile(), SandboxRecord.class));
                } catch (NoSuchFileException e) {
                    LOG.log(System.Logger.Level.WARNING, "sandbox dir " + dir + " has no " + RECORD + "; leaving it alone");
                } catch (IOException e) {
                    if (!Files.exists(file)) {
                        LOG.log(System.Logger.Level.WARNING, "sandbox dir " + dir + " has no " + RECORD + "; leaving it alone");
                    } else {
                        LOG.log(System.Logger.Level.ERROR, "cannot read " + file + ": " + e.getMessage());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + sandboxesDir, e);
        }
        return records;
    }

    public void deleteAll(String id) {
        TreeRemoval.removeRecursively(sandboxDir(id));
    }
}
