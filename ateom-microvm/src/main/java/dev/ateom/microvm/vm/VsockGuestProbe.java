package dev.ateom.microvm.vm;

import dev.ateom.chv.vsock.ProbeClient;
import dev.ateom.microvm.sandbox.GuestProbe;

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
}
