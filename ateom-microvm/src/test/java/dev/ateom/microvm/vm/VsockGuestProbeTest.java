package dev.ateom.microvm.vm;

import dev.ateom.microvm.http.SandboxProblems;
import dev.ateom.microvm.sandbox.GuestProbeAnswer;
import dev.ateom.microvm.sandbox.GuestProbeException;
import dev.ateom.microvm.sandbox.SandboxState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link VsockGuestProbe#command} against a hand-made hybrid-vsock socket that plays the guest: an answer is passed
 * on as the probe gave it, a guest that accepts and never answers is "timed out" (504), one whose port is refused
 * is "unreachable" (502).
 */
class VsockGuestProbeTest {
    @TempDir Path dir;

    @Test
    void answersErrorsAndSilenceAreToldApart() throws Exception {
        Path socket = dir.resolve("vsock.sock");
        CountDownLatch done = new CountDownLatch(1);
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            Thread guest = Thread.ofVirtual().start(() -> playGuest(server, done));
            VsockGuestProbe probe = new VsockGuestProbe();

            assertThat(probe.command(socket, 1024, "whoami", Duration.ofSeconds(5)))
                    .isEqualTo(new GuestProbeAnswer.Reply("guest-a", null, null));
            assertThat(probe.command(socket, 1024, "cat /nope", Duration.ofSeconds(5)))
                    .isEqualTo(new GuestProbeAnswer.Reply(null, "ENOENT", "open: No such file or directory"));
            GuestProbeAnswer refused = probe.command(socket, 9, "ping", Duration.ofSeconds(5));
            assertThat(refused).isInstanceOfSatisfying(GuestProbeAnswer.Silent.class, s -> {
                assertThat(s.timedOut()).isFalse();
                assertThat(s.detail()).contains("refused");
            });
            GuestProbeAnswer silent = probe.command(socket, 1024, "hang", Duration.ofMillis(300));
            assertThat(silent).isInstanceOfSatisfying(GuestProbeAnswer.Silent.class, s -> assertThat(s.timedOut()).isTrue());

            assertThat(SandboxProblems.of(new GuestProbeException("a", SandboxState.RUNNING, (GuestProbeAnswer.Silent) silent)).status())
                    .isEqualTo(504);
            assertThat(SandboxProblems.of(new GuestProbeException("a", SandboxState.RUNNING, (GuestProbeAnswer.Silent) refused)).status())
                    .isEqualTo(502);
            done.countDown();
            guest.join();
        }
    }

    /** CONNECT 1024 is accepted, any other port refused; whoami and cat answer, hang never does. */
    private static void playGuest(ServerSocketChannel server, CountDownLatch done) {
        for (int i = 0; i < 4; i++) {
            try (SocketChannel c = server.accept()) {
                String connect = readLine(c);
                if (!connect.equals("CONNECT 1024")) continue;
                write(c, "OK 1234\n");
                String command = readLine(c);
                switch (command) {
                    case "whoami" -> write(c, "OK 7\nguest-a");
                    case "cat /nope" -> write(c, "ERR ENOENT open: No such file or directory\n");
                    default -> done.await();
                }
            } catch (IOException e) {
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static String readLine(SocketChannel c) throws IOException {
        StringBuilder line = new StringBuilder();
        ByteBuffer one = ByteBuffer.allocate(1);
        while (c.read(one.clear()) == 1 && one.get(0) != '\n') line.append((char) one.get(0));
        return line.toString();
    }

    private static void write(SocketChannel c, String s) throws IOException {
        c.write(ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)));
    }
}
