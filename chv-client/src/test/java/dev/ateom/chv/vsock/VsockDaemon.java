package dev.ateom.chv.vsock;

import dev.ateom.fixtures.guest.GuestTools;
import dev.ateom.fixtures.wait.Eventually;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** vhost-device-vsock for one guest: vhost-user back-end on {@code backendSocket}, hybrid vsock on {@code udsPath}. */
record VsockDaemon(Path backendSocket, Path udsPath, Process process) implements AutoCloseable {

    static VsockDaemon start(Path backendSocket, Path udsPath, long guestCid) throws IOException, InterruptedException {
        Files.deleteIfExists(backendSocket);
        Files.deleteIfExists(udsPath);
        Process process = new ProcessBuilder(GuestTools.vhostDeviceVsock().toString(),
                "--vm", "guest-cid=" + guestCid + ",socket=" + backendSocket + ",uds-path=" + udsPath)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(backendSocket.resolveSibling("vhost-device-vsock.log").toFile()))
                .start();
        var daemon = new VsockDaemon(backendSocket, udsPath, process);
        Eventually.untilStarted(process, Duration.ofSeconds(10), () -> Files.exists(backendSocket),
                "vhost-device-vsock to create " + backendSocket, () -> "");
        return daemon;
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
            Files.deleteIfExists(backendSocket);
            Files.deleteIfExists(udsPath);
        } catch (IOException | InterruptedException e) {
            // best effort for a test
        }
    }
}
