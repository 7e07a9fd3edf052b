package dev.ateom.store;

/** A remote manifest that cannot be read: not JSON, inconsistent, or written by a newer ateom. */
public final class RemoteFormatException extends StoreException {
    public RemoteFormatException(String message) {
        super(message);
    }

    public RemoteFormatException(String message, Throwable cause) {
        super(message, null, cause);
    }
}
