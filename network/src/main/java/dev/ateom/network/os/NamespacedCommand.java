package dev.ateom.network.os;

import dev.ateom.process.ChildLauncher;
import dev.ateom.process.ProcessKill;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A program run inside the network namespace of the calling thread, for the few host tools the daemon cannot do
 * without ({@code nft} past the descriptor limit, {@code iptables} for tables iptables owns).
 *
 * <p>The {@link ChildLauncher} starts children from a thread of its own, outside the namespace the calling thread
 * may have entered, so the program runs under {@code nsenter --net=<this thread's namespace>}; the calling thread
 * waits for it, so its {@code /proc} entry stays valid meanwhile.
 */
public final class NamespacedCommand {
    private static final String NSENTER = "/usr/bin/nsenter";
    /** How long a killed program may take to be gone (one stuck in uninterruptible sleep is given up on). */
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);

    /** What the program did: its exit code and what it printed. */
    public record Result(int exitCode, String output, String errors) {
        public boolean succeeded() {
            return exitCode == 0;
        }
    }

    private NamespacedCommand() {
    }

    /**
     * Runs {@code argv} with {@code stdin} (null: none) and waits at most {@code timeout}; a program still running
     * then is killed and reaped before this throws.
     */
    public static Result run(List<String> argv, String stdin, Duration timeout) throws IOException {
        List<String> command = new ArrayList<>(List.of(NSENTER, "--net=" + Path.of("/proc").resolve(
                Files.readSymbolicLink(Path.of("/proc/thread-self"))).resolve("ns/net")));
        command.addAll(argv);
        // both streams go to files: a program that hangs cannot block a reader, only run into the timeout
        Path output = Files.createTempFile("ateom-cmd", ".out");
        Path errors = Files.createTempFile("ateom-cmd", ".err");
        Process child = null;
        try {
            child = ChildLauncher.start(new ProcessBuilder(command).redirectOutput(output.toFile()).redirectError(errors.toFile()), true);
            try (OutputStream in = child.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!child.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException(argv.getFirst() + " did not finish within " + timeout.toSeconds() + " s");
            }
            Result result = new Result(child.exitValue(), Files.readString(output), Files.readString(errors).strip());
            child = null;
            return result;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while " + argv.getFirst() + " ran");
        } finally {
            if (child != null) {
                killAndReap(child);
            }
            Files.deleteIfExists(output);
            Files.deleteIfExists(errors);
        }
    }

    /** A program given up on is gone when the call returns, not some time later. */
    private static void killAndReap(Process child) {
        ProcessKill.killTree(child, KILL_WAIT);
    }

    /** The first of {@code candidates} that is an executable file, or null. */
    public static String firstExecutable(List<String> candidates) {
        for (String candidate : candidates) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return null;
    }
}
