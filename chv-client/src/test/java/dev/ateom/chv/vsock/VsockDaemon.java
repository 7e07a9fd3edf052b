package dev.ateom.chv.vsock;

import dev.ateom.fixtures.guest.GuestTools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
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
        Instant deadline = Instant.now().plusSeconds(10);
        while (!Files.exists(backendSocket)) {
            if (!process.isAlive() || Instant.now().isAfter(deadline)) {
                daemon.close();
                throw new IOException("vhost-device-vsock did not create " + backendSocket);
            }
            Thread.sleep(5);
        }
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
