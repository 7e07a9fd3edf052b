package dev.ateom.snapshot;

import com.sun.jna.LastErrorException;
import java.io.IOException;

/** A failed libc call, keeping its errno so that callers can tell "exists" or "not a directory" from real failures. */
final class NativeCallException extends IOException {
    private final int errno;

    NativeCallException(String call, String subject, LastErrorException cause) {
        super(call + " " + subject + " failed: errno " + cause.getErrorCode() + " (" + cause.getMessage() + ")");
        this.errno = cause.getErrorCode();
    }

    int errno() {
        return errno;
    }
}
