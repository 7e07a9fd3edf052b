package dev.ateom.virtiofsd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.fixtures.wait.Eventually;
import dev.ateom.fixtures.wait.ProcessStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Why every spawn goes through one long-lived thread: the parent-death signal follows the forking thread. */
class ChildSpawnerTest {

    @TempDir
    Path dir;

    @Test
    void aChildForkedByAThreadThatEndsGetsItsParentDeathSignal() throws Exception {
        // the naive way: ProcessBuilder on a short-lived thread
        AtomicReference<Process> child = new AtomicReference<>();
        Thread shortLived = Thread.ofPlatform().start(() -> {
            try {
                child.set(new ProcessBuilder(ChildSpawner.command(List.of("sleep", "30"), true)).start());
                // setpriv sets the signal and then execs sleep: once sleep runs, this thread is the parent it names
                Eventually.until(Duration.ofSeconds(5), () -> commandLine(child.get().pid()).startsWith("sleep"), "setpriv to exec sleep");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        shortLived.join();

        assertThat(child.get().waitFor(5, TimeUnit.SECONDS)).as("killed when its forking thread ended").isTrue();
        assertThat(child.get().exitValue()).isEqualTo(128 + 9);
    }

    @Test
    void aChildSpawnedThroughTheSpawnerSurvivesTheCallingThread() throws Exception {
        AtomicReference<Process> child = new AtomicReference<>();
        Thread shortLived = Thread.ofPlatform().name("short-caller").start(() -> {
            try {
                child.set(ChildSpawner.spawn(List.of("sleep", "30"), true, dir.resolve("sleep.log")));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        shortLived.join();
        try {
            Eventually.until(Duration.ofSeconds(5), () -> !ProcessStatus.threadExists("short-caller"), "the calling thread to end");
            assertThat(ProcessStatus.survives(child.get().pid())).as("still running, no SIGKILL on its way").isTrue();
        } finally {
            child.get().destroyForcibly().waitFor();
        }
    }

    private static String commandLine(long pid) throws IOException {
        return new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")), StandardCharsets.UTF_8);
    }
}
