package dev.ateom.microvm.systeminfo.volume;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * A temp dir on tmpfs when there is one: the writer's invariants do not depend on the filesystem,
 * and ext4's journal only slows tests that commit thousands of generations on a loaded machine.
 */
public final class MemoryBackedTempDir implements TempDirFactory {
    @Override
    public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext context) throws IOException {
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, "ateom-systeminfo-")
                : Files.createTempDirectory("ateom-systeminfo-");
    }
}
