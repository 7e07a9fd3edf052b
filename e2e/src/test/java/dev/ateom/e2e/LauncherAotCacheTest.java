package dev.ateom.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bin/ateom maps the AOT cache only when it is newer than every jar: the JVM maps an older one without noticing
 * that a jar changed, and the daemon then ran stale classes. Runs a copy of the script against a layout of its own
 * (empty jars and a fake cache: the JVM fails after the check, which is all this needs).
 */
class LauncherAotCacheTest {

    @TempDir
    Path root;

    @Test
    void aCacheOlderThanAJarIsNotUsed() throws Exception {
        Path target = layout();
        Files.setLastModifiedTime(target.resolve("ateom.aot"), FileTime.from(Instant.now().minusSeconds(60)));

        String stderr = stderrOfLauncher();
        assertThat(stderr).contains("ateom.aot is older than dep.jar; starting without it");
        assertThat(stderr).doesNotContain("trying to map");
    }

    @Test
    void aCacheNewerThanEveryJarIsUsedSilently() throws Exception {
        Path target = layout();
        Files.setLastModifiedTime(target.resolve("ateom.aot"), FileTime.from(Instant.now().plusSeconds(60)));

        String stderr = stderrOfLauncher();
        assertThat(stderr).doesNotContain("starting without it");
        assertThat(stderr).as("the JVM was given the cache").contains("trying to map " + target.resolve("ateom.aot"));
    }

    private Path layout() throws IOException {
        Path bin = Files.createDirectories(root.resolve("bin"));
        Path launcher = Files.copy(E2ePaths.repoRoot().resolve("bin/ateom"), bin.resolve("ateom"));
        assertThat(launcher.toFile().setExecutable(true)).isTrue();
        Path target = Files.createDirectories(root.resolve("ateom-microvm/target/lib"));
        Instant jars = Instant.now().minusSeconds(30);
        Files.setLastModifiedTime(Files.writeString(root.resolve("ateom-microvm/target/ateom-microvm.jar"), ""), FileTime.from(jars.minusSeconds(30)));
        Files.setLastModifiedTime(Files.writeString(target.resolve("dep.jar"), ""), FileTime.from(jars));
        Files.writeString(root.resolve("ateom-microvm/target/ateom.aot"), "not a cache");
        return root.resolve("ateom-microvm/target");
    }

    private String stderrOfLauncher() throws Exception {
        ProcessBuilder builder = new ProcessBuilder(root.resolve("bin/ateom").toString(), "--version")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        // the JVM's own log says whether it was given a cache (bin/ateom turns that log off; this turns it on again)
        builder.environment().put("ATEOM_JAVA_OPTS", "-Xlog:aot:stderr");
        Process process = builder.start();
        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return stderr;
    }
}
