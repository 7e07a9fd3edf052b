package dev.ateom.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ateom.fixtures.wait.Eventually;
import dev.ateom.fixtures.wait.ProcessStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Why every start goes through long-lived launch threads (the parent-death signal follows the forking thread), that one hung start holds up no other, and the one policy. */
class ChildLauncherTest {

    @TempDir
    Path dir;

    @Test
    void aChildForkedByAThreadThatEndsGetsItsParentDeathSignal() throws Exception {
        // the naive way: ProcessBuilder on a short-lived thread
        AtomicReference<Process> child = new AtomicReference<>();
        Thread shortLived = Thread.ofPlatform().start(() -> {
            try {
                child.set(new ProcessBuilder(ChildLauncher.command(List.of("sleep", "30"), true)).start());
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
    void aChildStartedThroughTheLauncherSurvivesTheCallingThread() throws Exception {
        AtomicReference<Process> child = new AtomicReference<>();
        Thread shortLived = Thread.ofPlatform().name("short-caller").start(() -> {
            try {
                child.set(ChildLauncher.start(new ProcessBuilder("sleep", "30").redirectOutput(dir.resolve("sleep.log").toFile()), true));
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

    /**
     * A start whose input is a FIFO nobody writes to blocks in the JDK's open of the redirect, on its launch thread:
     * another start still returns (on one launch thread it waited behind it). Opening the FIFO lets the first go on.
     */
    @Test
    void aStartThatHangsHoldsUpNoOtherStart() throws Exception {
        Path fifo = dir.resolve("nobody-writes");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        CompletableFuture<Process> hung = startBeside(new ProcessBuilder("true").redirectInput(fifo.toFile()), false);
        try {
            Eventually.until(Duration.ofSeconds(5), ChildLauncherTest::aLaunchThreadIsOpeningAFile, "the first start to block opening the FIFO");
            Process other = startBeside(new ProcessBuilder("sleep", "30"), true).get(10, TimeUnit.SECONDS);
            other.destroyForcibly().waitFor();
            assertThat(hung).as("the first start still waits for its FIFO").isNotDone();
        } finally {
            // read-write never blocks on a FIFO, and counts as the writer the first start's open waits for
            try (FileChannel writer = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                assertThat(writer.isOpen()).isTrue();
            }
            assertThat(hung.get(10, TimeUnit.SECONDS).waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aChildThatMustDieWithTheDaemonIsNotStartedWhenNothingCanMakeItSo() {
        assertThat(ChildLauncher.command(List.of("sleep", "1"), false, dir.resolve("no-setpriv"))).containsExactly("sleep", "1");
        assertThatThrownBy(() -> ChildLauncher.command(List.of("sleep", "1"), true, dir.resolve("no-setpriv")))
                .isInstanceOf(ParentDeathSignalUnavailableException.class).hasMessageContaining("no-setpriv");
        assertThat(ChildLauncher.command(List.of("sleep", "1"), true)).containsExactly("/usr/bin/setpriv", "--pdeathsig", "SIGKILL", "--",
                "sleep", "1");
    }

    /** {@link ChildLauncher#start} on a virtual thread of its own. */
    private static CompletableFuture<Process> startBeside(ProcessBuilder builder, boolean dieWithDaemon) {
        CompletableFuture<Process> started = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                started.complete(ChildLauncher.start(builder, dieWithDaemon));
            } catch (IOException | RuntimeException e) {
                started.completeExceptionally(e);
            }
        });
        return started;
    }

    /** Whether one of the launcher's threads is in a file's open (the FIFO's, which waits for a writer). */
    private static boolean aLaunchThreadIsOpeningAFile() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().getName().startsWith("ateom-child-launcher"))
                .anyMatch(e -> e.getKey().getState() == Thread.State.RUNNABLE && Arrays.stream(e.getValue())
                        .anyMatch(frame -> frame.getMethodName().startsWith("open")));
    }

    private static String commandLine(long pid) throws IOException {
        return new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")), StandardCharsets.UTF_8);
    }
}
