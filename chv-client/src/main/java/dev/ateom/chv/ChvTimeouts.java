package dev.ateom.chv;

import java.time.Duration;

/**
 * Per-call time limits. CHV answers most calls in 10-70 ms; boot and restore wait up to 60 s for a dead
 * vhost-user socket (the client checks sockets first to avoid that); snapshot and restore scale with guest memory.
 */
public record ChvTimeouts(Duration request, Duration boot, Duration snapshot, Duration restore) {
    public static ChvTimeouts defaults() {
        return new ChvTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(120), Duration.ofSeconds(120));
    }

    /** The same limit for every call. */
    public static ChvTimeouts all(Duration timeout) {
        return new ChvTimeouts(timeout, timeout, timeout, timeout);
    }
}
