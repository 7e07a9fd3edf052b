package dev.ateom.microvm.systeminfo.source;

/** A data source could not be read into a generation; the message names the source path and the reason. */
public final class SourceException extends Exception {
    public SourceException(String message) {
        super(message);
    }

    public SourceException(String message, Throwable cause) {
        super(message, cause);
    }
}
