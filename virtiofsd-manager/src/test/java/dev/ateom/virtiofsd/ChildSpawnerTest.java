package dev.ateom.virtiofsd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Why every spawn goes through one long-lived thread: the parent-death signal follows the forking thread. */
class ChildSpawnerTest {

    @TempDir
    java.nio.file.Path dir;

    @Test
    void aChildForkedByAThreadThatEndsGetsItsParentDeathSignal() throws Exception {
        // the naive way: ProcessBuilder on a short-lived thread
        AtomicReference<Process> child = new AtomicReference<>();
        Thread shortLived = Thread.ofPlatform().start(() -> {
            try {
                child.set(new ProcessBuilder(ChildSpawner.command(List.of("sleep", "30"), true)).start());
                Thread.sleep(300); // let setpriv call prctl while this thread is still its parent
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        shortLived.join();

        assertThat(child.get().waitFor(5, TimeUnit.SECONDS)).as("killed when its forking thread ended").isTrue();
        assertThat(child.get().exitValue()).isEqualTo(128 + 9);
    }

    @Test
    void aChildSpawnedThroughTheSpawnerSurvivesTheCallingThread() throws Exception {
        AtomicReference<Process> child = new AtomicReference<>();
        Thread shortLived = Thread.ofPlatform().start(() -> {
            try {
                child.set(ChildSpawner.spawn(List.of("sleep", "30"), true, dir.resolve("sleep.log")));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        shortLived.join();
        try {
            assertThat(child.get().waitFor(500, TimeUnit.MILLISECONDS)).as("still running").isFalse();
        } finally {
            child.get().destroyForcibly().waitFor();
        }
    }
}
