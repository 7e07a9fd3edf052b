package dev.ateom.e2b;

import dev.ateom.microvm.json.ApiJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.System.Logger.Level.WARNING;

/** {@link E2bSandbox}es, one JSON file each under {@code <state-dir>/e2b/sandboxes/}, written atomically; read once at start. */
final class E2bSandboxStore {
    private static final System.Logger LOG = System.getLogger(E2bSandboxStore.class.getName());

    private final Path dir;
    private final Map<String, E2bSandbox> byId = new ConcurrentHashMap<>();

    private E2bSandboxStore(Path dir) { this.dir = dir; }

    static E2bSandboxStore open(Path stateDir) {
        Path dir = stateDir.resolve("e2b").resolve("sandboxes");
        E2bSandboxStore store = new E2bSandboxStore(dir);
        try {
            Files.createDirectories(dir);
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.json")) {
                for (Path file : files) {
                    try {
                        E2bSandbox sandbox = ApiJson.mapper().readValue(file.toFile(), E2bSandbox.class);
                        store.byId.put(sandbox.sandboxID(), sandbox);
                    } catch (IOException e) {
                        LOG.log(WARNING, "e2b: unreadable sandbox file " + file + " skipped: " + e.getMessage());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open " + dir, e);
        }
        return store;
    }

    Optional<E2bSandbox> find(String id) { return Optional.ofNullable(byId.get(id)); }

    List<E2bSandbox> all() { return List.copyOf(byId.values()); }

    void save(E2bSandbox sandbox) {
        Path file = dir.resolve(sandbox.sandboxID() + ".json");
        Path tmp = dir.resolve(sandbox.sandboxID() + ".json.tmp");
        try {
            Files.write(tmp, ApiJson.mapper().writeValueAsBytes(sandbox));
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        byId.put(sandbox.sandboxID(), sandbox);
    }

    void remove(String id) {
        byId.remove(id);
        try {
            Files.deleteIfExists(dir.resolve(id + ".json"));
        } catch (IOException e) {
            LOG.log(WARNING, "e2b: cannot remove the file of sandbox " + id + ": " + e.getMessage());
        }
    }
}
