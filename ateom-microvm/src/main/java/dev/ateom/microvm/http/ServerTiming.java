package dev.ateom.microvm.http;

import java.util.Locale;
import java.util.Optional;

/**
 * The daemon's own time per request, sent as a {@code Server-Timing: daemon;dur=<ms>} header (W3C Server Timing):
 * from the guard filter's start until the answer's body is written out. A client subtracts it from its wall time to
 * tell what the daemon spent from what the connection and the client itself did (the benchmark does).
 */
public final class ServerTiming {
    public static final String HEADER = "Server-Timing";
    private static final ScopedValue<Long> STARTED = ScopedValue.newInstance();

    private ServerTiming() {}

    /** Runs the rest of the request's handling with its start time known to {@link #header()}. */
    static void timed(Runnable handling) {
        ScopedValue.where(STARTED, System.nanoTime()).run(handling);
    }

    /** The header's value as of now, when this thread handles a request that {@link #timed} began. */
    static Optional<String> header() {
        if (!STARTED.isBound()) return Optional.empty();
        return Optional.of(String.format(Locale.ROOT, "daemon;dur=%.2f", (System.nanoTime() - STARTED.get()) / 1e6));
    }
}
