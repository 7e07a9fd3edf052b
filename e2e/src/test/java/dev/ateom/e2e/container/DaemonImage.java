package dev.ateom.e2e.container;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The daemon's container image, (re)built by {@code scripts/build-image.sh} so it always holds the current jar. */
final class DaemonImage {

    static final String NAME = System.getenv().getOrDefault("ATEOM_IMAGE", "ateom:dev");
    private static final long BUILD_TIMEOUT_SECONDS = 300;

    private static boolean built;

    private DaemonImage() {}

    /** Runs the build script once per test JVM; it returns within seconds when the image already matches the build. */
    static synchronized void ensureBuilt() throws IOException, InterruptedException {
        if (built) return;
        Path script = repoRoot().resolve("scripts/build-image.sh");
        Path log = Files.createTempFile("ateom-build-image", ".log");
        try {
            Process build = new ProcessBuilder(script.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!build.waitFor(BUILD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                build.destroyForcibly();
                throw new IllegalStateException(script + " did not finish in " + BUILD_TIMEOUT_SECONDS + " s:\n" + read(log));
            }
            String output = read(log);
            System.out.print(output);
            if (build.exitValue() != 0) {
                throw new IllegalStateException(script + " failed with exit code " + build.exitValue() + ":\n" + output);
            }
            built = true;
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static String read(Path log) throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    static Path repoRoot() {
        String property = System.getProperty("ateom.repo.root");
        Path start = Path.of(property != null ? property : System.getProperty("user.dir")).toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("scripts/build-image.sh"))) return dir;
        }
        throw new IllegalStateException("no scripts/build-image.sh above " + start);
    }
}
