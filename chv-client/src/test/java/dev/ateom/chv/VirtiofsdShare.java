package dev.ateom.chv;

import dev.ateom.fixtures.wait.Eventually;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One real virtiofsd serving {@code sharedDir} on {@code socket}, as the daemon will run it. */
final class VirtiofsdShare implements AutoCloseable {
    final Path socket;
    final Path log;
    private final Process process;

    private VirtiofsdShare(Path socket, Path log, Process process) {
        this.socket = socket;
        this.log = log;
        this.process = process;
    }

    static VirtiofsdShare start(Path dir, String name) throws IOException, InterruptedException {
        Path shared = Files.createDirectories(dir.resolve("share-" + name));
        Path socket = dir.resolve(name + ".sock");
        Path log = dir.resolve("virtiofsd-" + name + ".log");
        Process process = new ProcessBuilder(List.of(HostTools.virtiofsd().toString(), "--socket-path", socket.toString(),
                "--shared-dir", shared.toString(), "--tag", name, "--migration-mode", "find-paths"))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Eventually.untilStarted(process, Duration.ofSeconds(10), () -> ListeningSockets.current().contains(socket.toString()),
                "virtiofsd to listen on " + socket, () -> Files.readString(log));
        return new VirtiofsdShare(socket, log, process);
    }

    /** virtiofsd exits by itself when its front-end disconnects (vm.shutdown, failed boot). */
    boolean exitsWithin(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    String logText() throws IOException {
        return Files.readString(log);
    }

    /**
     * Kills virtiofsd and waits until nothing listens on its socket any more: its sandboxed child may outlive the
     * reaped parent for a moment, and a test that reuses the socket file as "stale" must not meet that listener.
     * {@code /proc/net/unix} keeps the path the socket was bound to, even after the file was moved.
     */
    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        Eventually.until(Duration.ofSeconds(5), () -> !ListeningSockets.current().contains(socket.toString()),
                "virtiofsd's listener on " + socket + " to be gone");
    }
}
