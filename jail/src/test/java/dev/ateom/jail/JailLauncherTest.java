package dev.ateom.jail;

import dev.ateom.fixtures.wait.Eventually;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The launcher's contract beside the jail itself: fails closed naming the step, exit status, death with its parent. */
class JailLauncherTest {
    private static final int UID = UidRange.DEFAULT.first() + 4300;

    @TempDir
    Path tmp;

    private JailSpec spec(int uid, Path runDir) throws Exception {
        Files.setAttribute(runDir, "unix:uid", uid);
        return VmmJails.spec(JailFixture.request(uid, Files.createDirectories(tmp.resolve("root-" + uid)), runDir, List.of(), Optional.empty()));
    }

    @Test
    void aFailedStepStopsTheLaunchBeforeTheProgramAndNamesTheStep() throws Exception {
        Path runDir = Files.createDirectories(tmp.resolve("run"));
        JailSpec good = spec(UID, runDir);
        List<BindMount> binds = new ArrayList<>(good.binds());
        binds.add(BindMount.readOnly(tmp.resolve("missing")));
        JailSpec bad = new JailSpec(good.uid(), good.gid(), good.kvmGid(), good.root(), binds, good.devices(), good.netns(), good.cgroups(),
                good.rlimits(), good.landlockRw(), good.landlockRo(), good.procfs(), good.denyTcp());
        Process p = JailFixture.start(bad, List.of(JailFixture.ATTACKER.toString(), "write-ran=" + runDir.resolve("ran")), tmp.resolve("out"));
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(JailLauncher.SETUP_FAILED);
        assertThat(Files.readString(tmp.resolve("out"))).startsWith("ateom-jail: bind source " + tmp.resolve("missing"))
                .contains("No such file or directory (errno 2)");
        assertThat(runDir.resolve("ran")).as("the program never ran").doesNotExist();
    }

    @Test
    void theProgramsExitStatusIsTheLaunchers() throws Exception {
        Path runDir = Files.createDirectories(tmp.resolve("run"));
        Process p = JailFixture.start(spec(UID, runDir), List.of("/nonexistent-program"), tmp.resolve("out"));
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(tmp.resolve("out"))).isEqualTo(JailLauncher.SETUP_FAILED);
        assertThat(Files.readString(tmp.resolve("out"))).contains("ateom-jail: exec /nonexistent-program");
    }

    @Test
    void theJailedProgramDiesWithTheLaunchersParent() throws Exception {
        Path runDir = Files.createDirectories(tmp.resolve("run"));
        List<String> argv = JailCommand.argv(JailFixture.LAUNCHER, spec(UID, runDir), true, List.of(JailFixture.ATTACKER.toString(), "sleep=300"));
        // a shell plays the daemon: its SIGKILL must take the launcher and the program with it
        Process daemon = new ProcessBuilder(concat(List.of("sh", "-c", "\"$@\" & wait", "sh"), argv)).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("out").toFile()).start();
        Eventually.until(Duration.ofSeconds(20), () -> Files.readString(tmp.resolve("out")).contains("sleeping"), "the jailed program runs");
        ProcessHandle launcher = daemon.children().findFirst().orElseThrow();
        ProcessHandle program = launcher.children().findFirst().orElseThrow();
        daemon.destroyForcibly();
        Eventually.until(Duration.ofSeconds(20), () -> !running(launcher.pid()) && !running(program.pid()),
                "launcher and program gone after their daemon's SIGKILL");
        assertThat(running(program.pid())).isFalse();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** Alive and not a zombie waiting for its reaper. */
    private static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            return !stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
        } catch (IOException e) {
            return false;
        }
    }
}
