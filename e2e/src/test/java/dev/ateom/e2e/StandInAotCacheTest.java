package dev.ateom.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.chv.ChvLaunch;
import dev.ateom.chv.ChvProcess;
import dev.ateom.chv.ConsoleConfig;
import dev.ateom.chv.CpusConfig;
import dev.ateom.chv.FsConfig;
import dev.ateom.chv.MemoryConfig;
import dev.ateom.chv.MemoryRestoreMode;
import dev.ateom.chv.PayloadConfig;
import dev.ateom.chv.RestoreConfig;
import dev.ateom.chv.VmConfig;
import dev.ateom.chv.VsockConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A warm pool's stand-in member answers little but vm.restore: the classes that restore needs come from the
 * stand-in's AOT cache (fixtures/bin/build-standin-aot.sh trains it through a snapshot and a restore), not read and
 * linked from the JDK's image or the jar on the restore's path, where ~200 of them cost ~15 ms of a claimed member's
 * restore. Left out: JFR's event classes, which no cache holds, and java.lang.invoke's, which the first call of a
 * method handle's kind loads beside the forms it spins (MethodHandle$1 is not archived).
 */
class StandInAotCacheTest {
    @TempDir
    Path dir;

    @Test
    void aFreshStandInsRestoreLoadsNoClassOutsideItsCache() throws Exception {
        Path snapshot = Files.createDirectories(dir.resolve("snapshot"));
        Path share = Files.createDirectories(dir.resolve("share"));
        Path fsSocket = dir.resolve("fs.sock");
        VmConfig config = new VmConfig(CpusConfig.of(1), MemoryConfig.shared(128L << 20),
                PayloadConfig.kernel(Files.writeString(dir.resolve("vmlinux"), "not a kernel").toString(), null, "console=ttyS0"),
                List.of(FsConfig.of("train", fsSocket.toString())), VsockConfig.of(3, dir.resolve("vsock.sock").toString()),
                ConsoleConfig.off(), ConsoleConfig.off(), null, null, null);
        Process firstShare = virtiofsd(share, fsSocket);
        try (ChvProcess first = standIn("first", Map.of())) {
            first.client().create(config);
            first.client().boot();
            first.client().pause();
            first.client().snapshot(snapshot);
        } finally {
            stop(firstShare);
        }

        Path classes = dir.resolve("classes.txt");
        Process memberShare = virtiofsd(share, fsSocket);
        try (ChvProcess member = standIn("member", Map.of("JAVA_TOOL_OPTIONS", "-Xlog:class+load:file=" + classes))) {
            assertThat(ProcessHandle.of(member.pid()).flatMap(p -> p.info().arguments()).map(List::of).orElseThrow())
                    .as("bin/chv-standin maps its cache (target/standin.aot missing or older than target/classes? run: "
                            + "mvn -pl fixtures package)")
                    .anyMatch(arg -> arg.startsWith("-XX:AOTCache="));
            long atStart = Files.readAllLines(classes).size(); // the member answered vmm.ping: it is a pool's idle member
            member.client().restore(RestoreConfig.fromDirectory(snapshot, MemoryRestoreMode.Copy));
            member.client().resume();

            List<String> loaded = Files.readAllLines(classes).stream().skip(atStart).toList();
            assertThat(loaded).as("the restore loaded classes (the log works)").isNotEmpty();
            assertThat(loaded).as("classes the restore read from the JDK's image or a jar, outside the cache")
                    .filteredOn(line -> line.contains("source: jrt:/") || line.contains("source: file:"))
                    .filteredOn(line -> !line.contains(" jdk.internal.event.") && !line.contains(" java.lang.invoke."))
                    .isEmpty();
        } finally {
            stop(memberShare);
        }
    }

    private ChvProcess standIn(String name, Map<String, String> environment) {
        var env = new HashMap<>(environment);
        env.put("ATEOM_STANDIN_BACKEND", "none");
        return ChvProcess.start(new ChvLaunch(E2ePaths.standIn(), dir.resolve(name + ".api.sock"), dir.resolve(name + ".log"),
                dir.resolve(name + ".out"), 1, Duration.ofSeconds(30), env));
    }

    /** A virtiofsd serving {@code share} at {@code socket} (one front-end connection, then it exits), once it listens. */
    private static Process virtiofsd(Path share, Path socket) throws IOException, InterruptedException {
        Files.deleteIfExists(socket);
        Process process = new ProcessBuilder(E2ePaths.virtiofsd().toString(), "--socket-path", socket.toString(),
                "--shared-dir", share.toString(), "--tag", "train", "--sandbox", "none")
                .redirectErrorStream(true).redirectOutput(socket.resolveSibling("virtiofsd.log").toFile()).start();
        Instant deadline = Instant.now().plusSeconds(10);
        while (!Files.exists(socket)) {
            if (!process.isAlive() || Instant.now().isAfter(deadline)) {
                process.destroyForcibly();
                throw new IllegalStateException("virtiofsd did not listen at " + socket + ": " + Files.readString(socket.resolveSibling("virtiofsd.log")));
            }
            Thread.sleep(10);
        }
        return process;
    }

    private static void stop(Process process) throws InterruptedException {
        process.destroy();
        process.waitFor();
    }
}
