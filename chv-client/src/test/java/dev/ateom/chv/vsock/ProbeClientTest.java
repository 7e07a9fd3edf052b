package dev.ateom.chv.vsock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client side of the hybrid-vsock handshake and the probe's framing, against a scripted peer on a real
 * Unix socket (the real guest probe is exercised in the fixtures module's guest tests).
 */
class ProbeClientTest {
    @TempDir
    Path dir;
    private ServerSocketChannel server;

    /** A peer that accepts only {@code CONNECT 1024} and answers the probe protocol from a tiny table. */
    private Path startPeer(boolean silent) throws IOException {
        Path socket = dir.resolve("vsock.sock");
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Thread.ofVirtual().start(() -> {
            while (server.isOpen()) {
                try (SocketChannel c = server.accept()) {
                    var in = new BufferedReader(new InputStreamReader(Channels.newInputStream(c), StandardCharsets.UTF_8));
                    OutputStream out = Channels.newOutputStream(c);
                    if (!"CONNECT 1024".equals(in.readLine())) {
                        continue; // CHV closes when nothing listens on the port
                    }
                    out.write("OK 1073741824\n".getBytes(StandardCharsets.US_ASCII));
                    for (String line; (line = in.readLine()) != null; ) {
                        if (silent) {
                            continue;
                        }
                        String answer = switch (line) {
                            case "whoami" -> "OK 1\nA";
                            case "ls /data" -> "OK 5\na\nbb\n";
                            case "cat /multi" -> "OK 5\nx\ny\nz";
                            case "time" -> "OK 19\n1700000000123456789";
                            default -> "ERR ENOENT open: No such file or directory\n";
                        };
                        out.write(answer.getBytes(StandardCharsets.UTF_8));
                    }
                } catch (IOException e) {
                    return;
                }
            }
        });
        return socket;
    }

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void framesPayloadsErrorsAndLists() throws IOException {
        var probe = new ProbeClient(startPeer(false));
        assertThat(probe.whoami().text()).isEqualTo("A");
        assertThat(probe.cat("/multi").text()).isEqualTo("x\ny\nz");
        assertThat(probe.ls("/data")).containsExactly("a", "bb");
        assertThat(probe.time()).isEqualTo(Instant.ofEpochSecond(1_700_000_000L, 123_456_789));
        ProbeReply missing = probe.cat("/nope");
        assertThat(missing.ok()).isFalse();
        assertThat(missing.errno()).isEqualTo("ENOENT");
        assertThatThrownBy(missing::text).isInstanceOf(ProbeException.class).hasMessageContaining("ENOENT");
    }

    @Test
    void aPortNobodyListensOnIsReportedAsRefused() throws IOException {
        var probe = new ProbeClient(startPeer(false), 9999, Duration.ofSeconds(2));
        assertThatThrownBy(probe::ping).isInstanceOf(ProbeException.class).hasMessageContaining("refused");
    }

    @Test
    void refusedConnectsLeaveNoDescriptorsBehind() throws IOException {
        var probe = new ProbeClient(startPeer(false), 9999, Duration.ofSeconds(2));
        assertThatThrownBy(probe::ping).isInstanceOf(ProbeException.class); // classes loaded, server thread running
        long before = openDescriptors();
        for (int i = 0; i < 200; i++) {
            assertThatThrownBy(probe::ping).isInstanceOf(ProbeException.class).hasMessageContaining("refused");
        }
        // A leak is 2 descriptors per attempt (the selector's epoll and eventfd): 400 here.
        assertThat(openDescriptors() - before).isLessThan(20);
    }

    private static long openDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    @Test
    void aSilentGuestTimesOutAndAwaitReadyNamesTheSocket() throws IOException {
        Path socket = startPeer(true);
        var probe = new ProbeClient(socket, 1024, Duration.ofMillis(200));
        assertThatThrownBy(probe::ping).isInstanceOf(ProbeException.class).hasMessageContaining("deadline");
        assertThatThrownBy(() -> probe.awaitReady(Duration.ofMillis(500)))
                .isInstanceOf(ProbeException.class).hasMessageContaining(socket.toString()).hasMessageContaining("1024");
    }
}
