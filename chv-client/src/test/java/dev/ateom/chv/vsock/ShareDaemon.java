package dev.ateom.chv.vsock;

import dev.ateom.chv.UnixListeners;
import dev.ateom.fixtures.guest.GuestTools;
import dev.ateom.fixtures.wait.Eventually;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A real virtiofsd serving one share for a test, with the flags the design gives each share kind. */
record ShareDaemon(String tag, Path socket, Process process) implements AutoCloseable {

    enum Kind { ROOTFS, DURABLE, SYSTEM_INFO }

    static ShareDaemon start(Kind kind, String tag, Path dir, Path socket) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(GuestTools.virtiofsd().toString(),
                "--socket-path", socket.toString(), "--shared-dir", dir.toString(),
                "--migration-mode", "find-paths", "--sandbox", "none", "--log-level", "info"));
        switch (kind) {
            case ROOTFS -> command.addAll(List.of("--readonly", "--cache", "always"));
            case DURABLE -> command.addAll(List.of("--cache", "auto"));
            case SYSTEM_INFO -> command.addAll(List.of("--readonly", "--cache", "auto", "--migration-on-error", "guest-error"));
        }
        Files.deleteIfExists(socket);
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(socket.resolveSibling(socket.getFileName() + ".log").toFile()))
                .start();
        var daemon = new ShareDaemon(tag, socket, process);
        // listening, not only the file: virtiofsd binds before it listens, and the restore's preflight (ChvClient) refuses
        // a socket in between as having no listener (seen under load in QemuStandInNetworkTest)
        Eventually.untilStarted(process, Duration.ofSeconds(10), () -> UnixListeners.listening(socket),
                "virtiofsd for " + tag + " to listen on " + socket, () -> "");
        return daemon;
    }

    /** virtiofsd exits by itself when its front-end goes away. */
    boolean exitsWithin(Duration time) throws InterruptedException {
        return process.waitFor(time.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
            Files.deleteIfExists(socket);
            Files.deleteIfExists(socket.resolveSibling(socket.getFileName() + ".pid"));
        } catch (IOException | InterruptedException e) {
            // best effort for a test
        }
    }
}
