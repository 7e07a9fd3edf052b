package dev.ateom.microvm.vm;

import dev.ateom.chv.vsock.ProbeClient;
import dev.ateom.chv.vsock.ProbeException;
import dev.ateom.chv.vsock.ProbeReply;
import dev.ateom.microvm.sandbox.GuestProbe;
import dev.ateom.microvm.sandbox.GuestProbeAnswer;

import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/** {@link GuestProbe} over CHV's hybrid vsock (connect to the vsock socket, {@code CONNECT <port>}), via {@link ProbeClient}. */
public final class VsockGuestProbe implements GuestProbe {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

    @Override
    public void awaitReady(Path vsockSocket, long port, Duration timeout) {
        new ProbeClient(vsockSocket, port, CALL_TIMEOUT).awaitReady(timeout);
    }

    @Override
    public void setClock(Path vsockSocket, long port, Instant now) {
        new ProbeClient(vsockSocket, port, CALL_TIMEOUT).setTime(now);
    }

    @Override
    public long activity(Path vsockSocket, long port) {
        return new ProbeClient(vsockSocket, port, CALL_TIMEOUT).activity();
    }

    @Override
    public GuestProbeAnswer command(Path vsockSocket, long port, String command, Duration timeout) {
        try {
            ProbeReply reply = new ProbeClient(vsockSocket, port, timeout).call(command);
            return reply.ok() ? new GuestProbeAnswer.Reply(new String(reply.payload(), StandardCharsets.UTF_8), null, null)
                    : new GuestProbeAnswer.Reply(null, reply.errno(), reply.message());
        } catch (ProbeException e) {
            return new GuestProbeAnswer.Silent(e.getCause() instanceof SocketTimeoutException, e.getMessage());
        }
    }
}
