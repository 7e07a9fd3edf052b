package dev.ateom.chv;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Where the real tools live: from the environment, falling back to {@code <repo>/.tools}. */
final class HostTools {
    private HostTools() {
    }

    static Path repoRoot() {
        return Path.of(System.getProperty("ateom.repo.root", "..")).toAbsolutePath().normalize();
    }

    static Path virtiofsd() {
        return fromEnv("ATEOM_VIRTIOFSD", repoRoot().resolve(".tools/virtiofsd/bin/virtiofsd"));
    }

    /** The guest kernel image (any readable file satisfies the stand-in; real CHV boots it). */
    static Path kernel() {
        Path dir = fromEnv("ATEOM_GUEST_KERNEL_DIR", repoRoot().resolve(".tools/kernel")).resolve("boot");
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("vmlinuz")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no vmlinuz-* in " + dir + " (run scripts/setup.sh)"));
        } catch (IOException e) {
            throw new IllegalStateException("guest kernel dir " + dir + " unreadable (run scripts/setup.sh): " + e.getMessage(), e);
        }
    }

    private static Path fromEnv(String name, Path fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : Path.of(value);
    }
}
