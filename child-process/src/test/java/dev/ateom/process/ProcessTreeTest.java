package dev.ateom.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.fixtures.wait.Eventually;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A child's own process tree from /proc, and when a killed process counts as gone. */
class ProcessTreeTest {

    @Test
    void findsGrandchildrenAndSeesThemGoneOnceKilled() throws Exception {
        // sh starts a subshell that starts sleep: a child and a grandchild, as the stand-in starts setpriv-exec'd QEMU
        Process shell = ChildLauncher.start(new ProcessBuilder("sh", "-c", "(sleep 30; true) & wait"), true);
        try {
            Eventually.until(Duration.ofSeconds(10), () -> ProcessTree.descendants(shell.pid()).size() == 2, "the subshell and its sleep");
            List<ProcessHandle> below = ProcessTree.descendants(shell.pid());
            assertThat(below).allMatch(p -> ProcessTree.isRunning(p.pid()));
            assertThat(ProcessTree.descendants(below.getLast().pid())).as("sleep starts nothing").isEmpty();

            below.forEach(ProcessHandle::destroyForcibly);
            for (ProcessHandle p : below) {
                assertThat(ProcessTree.awaitGone(p.pid(), Duration.ofSeconds(10))).as("pid %d gone after SIGKILL", p.pid()).isTrue();
            }
        } finally {
            shell.destroyForcibly();
            shell.waitFor();
        }
        assertThat(ProcessTree.isRunning(shell.pid())).isFalse();
        assertThat(ProcessTree.descendants(shell.pid())).as("a process that is gone has no tree").isEmpty();
    }
}
