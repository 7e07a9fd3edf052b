package dev.ateom.chv;

import java.nio.file.Path;
import java.time.Duration;

/** CHV did not answer within the call's timeout (the connection is dropped; CHV may still finish the call). */
public final class ChvTimeoutException extends ChvException {
    private final Duration timeout;

    ChvTimeoutException(String endpoint, Path socket, Duration timeout) {
        super(endpoint, "no answer on " + socket + " within " + timeout.toMillis() + " ms", null);
        this.timeout = timeout;
    }

    public Duration timeout() {
        return timeout;
    }
}
