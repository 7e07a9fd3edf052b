package dev.ateom.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.fixtures.wait.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
            assertThat(ProcessTree.children(shell.pid())).as("the shell's own child: the subshell, not its sleep")
                    .containsExactly(below.getFirst());

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

    @Test
    void aProcessWhoseLeaderThreadExitedRunsUntilItsLastThreadHas(@TempDir Path dir) throws Exception {
        // the leader thread ends (pthread_exit) while another runs on, holding a listening socket: /proc shows the leader
        // as a zombie and an empty fd dir, yet the socket listens, as a killed virtiofsd's did while its threads exited
        Path socket = dir.resolve("held.sock");
        Process process = ChildLauncher.start(new ProcessBuilder("/usr/bin/python3", "-c", """
                import ctypes, socket, sys, threading, time
                s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen()
                threading.Thread(target=time.sleep, args=(60,)).start()
                print('ready', flush=True)
                ctypes.CDLL(None).pthread_exit(None)
                """, socket.toString()), true);
        try {
            assertThat(process.inputReader().readLine()).isEqualTo("ready");
            Eventually.until(Duration.ofSeconds(10), () -> Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"))
                    .matches(".*\\) Z .*\\s*"), "the leader thread to be a zombie");

            try (var fds = Files.list(Path.of("/proc", Long.toString(process.pid()), "fd"))) {
                assertThat(fds).as("descriptors /proc shows for it: none, so no scan finds the socket's holder").isEmpty();
            }
            assertThat(ProcessTree.isRunning(process.pid())).as("a zombie leader with a thread left").isTrue();
        } finally {
            process.destroyForcibly();
            process.waitFor();
        }
        assertThat(ProcessTree.isRunning(process.pid())).isFalse();
    }
}
