package dev.ateom.store;

import java.time.Duration;
import java.util.Locale;

/**
 * What one run of the conditional-write probe found ({@link StoreProbe}); {@code detail} says what was seen, for the
 * start-up log and refusals; {@code requests} and {@code took} are what the probe cost.
 */
public record ProbeResult(ConditionalWrites conditionalWrites, String detail, int requests, Duration took) {
    public boolean leasesSafe() {
        return conditionalWrites == ConditionalWrites.HONOURED;
    }

    /** "192 requests in 1.4 s", for the log line that states the probe's cost. */
    public String cost() {
        return requests + " requests in " + String.format(Locale.ROOT, "%.1f s", took.toMillis() / 1000.0);
    }
}
