package dev.ateom.jail;

import dev.ateom.fixtures.wait.Eventually;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/** Runs a program in a VMM's jail ({@link VmmJails}) from this module's build: target/ateom-jail. */
final class JailFixture {
    static final Path LAUNCHER = Path.of("target", "ateom-jail").toAbsolutePath();
    static final Path ATTACKER = Path.of("target", "broken-out-vmm").toAbsolutePath();

    private JailFixture() {}

    static VmmJailRequest request(int uid, Path root, Path runDir, List<Path> readOnly, Optional<SandboxCgroup> cgroup) {
        return new VmmJailRequest(uid, OptionalInt.empty(), root, List.of(ATTACKER), readOnly, List.of(runDir), Optional.empty(), cgroup,
                1024, 64L << 20);
    }

    static Process start(JailSpec spec, List<String> program, Path output) throws IOException {
        List<String> argv = JailCommand.argv(LAUNCHER, spec, true, program);
        return new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    }

    /** The launcher's {@code --inject} of {@code binds} into the jail of {@code pid}: its exit status and output. */
    static Injection inject(long pid, List<BindMount> binds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(JailCommand.inject(LAUNCHER, pid, binds)).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("ateom-jail --inject still runs after 30 s: " + output);
        }
        return new Injection(p.exitValue(), output);
    }

    record Injection(int status, String output) {}

    /** Waits until the jailed program printed {@code line} (it runs, its jail is up). */
    static void awaitOutput(Path output, String line) throws Exception {
        Eventually.until(Duration.ofSeconds(30), () -> Files.exists(output) && Files.readAllLines(output).contains(line),
                "the jailed program prints " + line);
    }

    /** Runs to its end (bounded): its output lines. */
    static List<String> run(JailSpec spec, List<String> program, Path output) throws IOException, InterruptedException {
        Process p = start(spec, program, output);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("jailed program still runs after 60 s: " + Files.readString(output));
        }
        return new ArrayList<>(Files.readAllLines(output, StandardCharsets.UTF_8));
    }
}
