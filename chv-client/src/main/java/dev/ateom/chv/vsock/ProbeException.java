package dev.ateom.chv.vsock;

/** The probe could not be reached, answered out of protocol, or reported an error where none was expected. */
public final class ProbeException extends RuntimeException {
    public ProbeException(String message) {
        super(message);
    }

    public ProbeException(String message, Throwable cause) {
        super(message, cause);
    }
}
