package dev.ateom.microvm.sandbox;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/** The daemon's use of the guest's identity probe over CHV's hybrid vsock: readiness, clock and activity. */
public interface GuestProbe {
    /** Returns once the probe answers {@code ping} on {@code port}; throws naming the socket and port after {@code timeout}. */
    void awaitReady(Path vsockSocket, long port, Duration timeout);

    /** Sets the guest's wall clock (it is behind by the time the VM spent saved). */
    void setClock(Path vsockSocket, long port, Instant now);

    /**
     * The guest's activity counter (the idle timeout counts a change as use of the sandbox); throws when the probe
     * does not answer within a few seconds.
     */
    long activity(Path vsockSocket, long port);

    /** Sends one command line (no newline) and returns the probe's answer, or why there was none within {@code timeout}. */
    GuestProbeAnswer command(Path vsockSocket, long port, String command, Duration timeout);
}
