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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Why every start goes through long-lived launch threads (the parent-death signal follows the forking thread), that one hung start holds up no other, and the one policy. */
class ChildLauncherTest {

    @TempDir
    Path dir;

    /** Through either wrapper: the build's static helper (what the daemon uses) and setpriv (where it is missing). */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aChildForkedByAThreadThatEndsGetsItsParentDeathSignal(boolean helper) throws Exception {
        Optional<ParentDeathWrapper> wrapper = helper ? ParentDeathWrapper.find() : Optional.of(new ParentDeathWrapper(ParentDeathWrapper.SETPRIV, false));
        assertThat(wrapper).get().extracting(ParentDeathWrapper::helper).isEqualTo(helper);
        // the naive way: ProcessBuilder on a short-lived thread
        AtomicReference<Process> child = new AtomicReference<>();
        Thread shortLived = Thread.ofPlatform().start(() -> {
            try {
                child.set(new ProcessBuilder(ChildLauncher.command(List.of("sleep", "30"), true, wrapper)).start());
                // the wrapper sets the signal and then execs sleep: once sleep runs, this thread is the parent it names
                Eventually.until(Duration.ofSeconds(5), () -> commandLine(child.get().pid()).startsWith("sleep"), "the wrapper to exec sleep");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        shortLived.join();

        assertThat(child.get().waitFor(5, TimeUnit.SECONDS)).as("killed when its forking thread ended").isTrue();
        assertThat(child.get().exitValue()).isEqualTo(128 + 9);
    }

    /**
     * The helper runs nothing for a parent that is not the one it was told: that parent could have died before the
     * signal was set, and would never send it.
     */
    @Test
    void theHelperRefusesToRunAProgramForAParentThatIsNotItsOwn() throws Exception {
        ParentDeathWrapper helper = ParentDeathWrapper.find().filter(ParentDeathWrapper::helper).orElseThrow();
        Path ran = dir.resolve("ran");
        long notTheParent = ProcessHandle.current().parent().orElseThrow().pid();
        Process refused = new ProcessBuilder(helper.program().toString(), Long.toString(notTheParent), "touch", ran.toString())
                .redirectErrorStream(true).start();
        String output = new String(refused.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(refused.waitFor()).isEqualTo(125);
        assertThat(output).contains("parent pid " + notTheParent + " has exited before the death signal was set");
        assertThat(ran).doesNotExist();

        Process ranIt = new ProcessBuilder(helper.wrap(List.of("touch", ran.toString()))).start();
        assertThat(ranIt.waitFor()).isZero();
        assertThat(ran).exists();
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
        assertThat(ChildLauncher.command(List.of("sleep", "1"), false, Optional.empty())).containsExactly("sleep", "1");
        assertThatThrownBy(() -> ChildLauncher.command(List.of("sleep", "1"), true, Optional.empty()))
                .isInstanceOf(ParentDeathSignalUnavailableException.class)
                .hasMessageContaining("cannot make sleep die with the daemon")
                .hasMessageContaining("ateom-die-with-parent").hasMessageContaining("/usr/bin/setpriv");
        // the build's helper is what a child of the daemon runs behind, told this JVM's pid
        String pid = Long.toString(ProcessHandle.current().pid());
        assertThat(ChildLauncher.command(List.of("sleep", "1"), true)).endsWith(pid, "sleep", "1").first().asString()
                .endsWith("child-process/target/ateom-die-with-parent");
        assertThat(ChildLauncher.command(List.of("sleep", "1"), true, Optional.of(new ParentDeathWrapper(ParentDeathWrapper.SETPRIV, false))))
                .containsExactly("/usr/bin/setpriv", "--pdeathsig", "SIGKILL", "--", "sleep", "1");
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
