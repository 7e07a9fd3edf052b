package dev.ateom.microvm.host;

import dev.ateom.process.ChildLauncher;
import dev.ateom.process.ProcessKill;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Asks a Cloud Hypervisor binary its version: {@code <binary> --version}, one short process. */
public final class HypervisorVersionProbe {
    private static final long TIMEOUT_SECONDS = 30;
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);

    /** What the binary said: its version when it printed one, and its words either way (for the messages). */
    public record Answer(Optional<ChvVersion> version, String printed) {}

    private HypervisorVersionProbe() {}

    public static Answer ask(Path binary) {
        Process process = null;
        Path output = null;
        try {
            // the answer goes to a file: a binary that hangs cannot block a reader, only run into the timeout
            output = Files.createTempFile("ateom-chv-version", ".out");
            process = ChildLauncher.start(new ProcessBuilder(List.of(binary.toString(), "--version")).redirectErrorStream(true)
                    .redirectOutput(output.toFile()), false);
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                return new Answer(Optional.empty(), "no answer to --version within " + TIMEOUT_SECONDS + " s");
            }
            int exit = process.exitValue();
            process = null;
            String printed = Files.readString(output).strip();
            return new Answer(ChvVersion.parse(printed), printed.isEmpty() ? "nothing (exit " + exit + ")" : printed);
        } catch (IOException e) {
            return new Answer(Optional.empty(), "cannot run it: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(Optional.empty(), "interrupted while asking it");
        } finally {
            if (process != null) killAndReap(process);
            if (output != null) deleteQuietly(output);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a temp file; nothing depends on it
        }
    }

    /** A probe given up on leaves no process behind. */
    private static void killAndReap(Process process) {
        ProcessKill.killTree(process, KILL_WAIT);
    }
}
