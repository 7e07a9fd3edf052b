package dev.ateom.store;

/** The store's endpoint did not answer (refused, unknown host, timed out, connection lost). */
public final class StoreUnavailableException extends StoreException {
    public StoreUnavailableException(String message, Throwable cause) {
        super(message, StoreOption.ENDPOINT, cause);
    }
}
