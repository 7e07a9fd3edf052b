package dev.ateom.microvm.vm;

import dev.ateom.chv.vsock.DeadlineChannel;
import dev.ateom.chv.vsock.HybridVsock;
import dev.ateom.microvm.template.GuestHttpCheck;
import dev.ateom.microvm.template.TemplateException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/** {@link GuestHttpCheck} over CHV's hybrid vsock: one HTTP/1.1 request per try, 200 ms apart, until the deadline. */
public final class VsockHttpCheck implements GuestHttpCheck {
    private static final Duration ATTEMPT = Duration.ofSeconds(5);
    private static final Duration PAUSE = Duration.ofMillis(200);

    @Override
    public void awaitHealthy(Path vsockSocket, long port, String path, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        String last = "no attempt";
        while (true) {
            Instant attemptDeadline = min(deadline, Instant.now().plus(ATTEMPT));
            try (DeadlineChannel connection = new HybridVsock(vsockSocket).connect(port, Duration.between(Instant.now(), attemptDeadline))) {
                String request = "GET " + path + " HTTP/1.1\r\nHost: guest\r\nConnection: close\r\n\r\n";
                connection.writeAll(ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII)), attemptDeadline);
                String status = connection.readLine(attemptDeadline, 256);
                if (status != null && status.strip().matches("HTTP/1\\.[01] 2\\d\\d( .*)?")) return;
                last = status == null ? "connection closed without an answer" : status.strip();
            } catch (IOException | RuntimeException e) {
                last = e.getMessage();
            }
            if (!Instant.now().plus(PAUSE).isBefore(deadline)) {
                throw new TemplateException(TemplateException.Kind.NOT_READY, "health",
                        "the guest did not answer GET " + path + " on vsock port " + port + " with 2xx within " + timeout.toSeconds()
                                + " s (last: " + last + ")");
            }
            try {
                Thread.sleep(PAUSE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TemplateException(TemplateException.Kind.NOT_READY, "health", "interrupted while waiting for the guest");
            }
        }
    }

    private static Instant min(Instant a, Instant b) { return a.isBefore(b) ? a : b; }
}
