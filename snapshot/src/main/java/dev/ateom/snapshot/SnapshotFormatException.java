package dev.ateom.snapshot;

/** A snapshot file that this code cannot use as it is: wrong shape, newer format, missing piece. */
public class SnapshotFormatException extends RuntimeException {
    public SnapshotFormatException(String message) {
        super(message);
    }

    public SnapshotFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
