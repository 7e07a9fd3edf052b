package dev.ateom.chv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Children die with the daemon, even when the daemon is SIGKILLed; the launcher script works as a CHV binary. */
class ChvProcessDeathTest {
    @TempDir
    Path dir;

    @Test
    void chvDiesWhenItsParentJvmIsKilled() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process parent = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                ChvParentMain.class.getName(), dir.toString())).redirectErrorStream(true).start();
        long chvPid = -1;
        try (var out = new BufferedReader(new InputStreamReader(parent.getInputStream()))) {
            String line;
            while ((line = out.readLine()) != null && !line.startsWith("chv-pid ")) {
                // skip JVM warnings
            }
            assertThat(line).as("parent reported the CHV pid").isNotNull();
            chvPid = Long.parseLong(line.substring("chv-pid ".length()).trim());
            ProcessHandle chv = ProcessHandle.of(chvPid).orElseThrow();
            assertThat(chv.isAlive()).isTrue();
            parent.destroyForcibly(); // SIGKILL: no shutdown hook runs
            parent.waitFor(10, TimeUnit.SECONDS);
            assertThat(chv.onExit().completeOnTimeout(null, 10, TimeUnit.SECONDS).get())
                    .as("CHV pid %d got its parent-death signal", chvPid).isNotNull();
            assertThat(chv.isAlive()).isFalse();
        } finally {
            parent.destroyForcibly();
            ProcessHandle.of(chvPid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void launcherScriptServesAsTheCloudHypervisorBinary() throws Exception {
        Path script = HostTools.repoRoot().resolve("fixtures/bin/chv-standin");
        assumeTrue(Files.isDirectory(HostTools.repoRoot().resolve("fixtures/target/lib")),
                "fixtures/target/lib missing: build fixtures (mvn -pl fixtures process-classes) to test bin/chv-standin");
        var launch = new ChvLaunch(script, dir.resolve("api.sock"), dir.resolve("chv.log"), dir.resolve("chv.out"), 1,
                Duration.ofSeconds(30), Map.of("ATEOM_STANDIN_BACKEND", "none"));
        try (ChvProcess chv = ChvProcess.start(launch)) {
            assertThat(chv.client().ping().version()).isEqualTo("54.0.0");
            assertThat(Files.readString(dir.resolve("chv.log"))).contains("backend none");
        }
    }
}
