package dev.ateom.store;

/** The store answered a request with an error that has no more specific type (HTTP status and S3 error code). */
public final class StoreRequestException extends StoreException {
    private final int status;

    public StoreRequestException(String message, int status, Throwable cause) {
        super(message, null, cause);
        this.status = status;
    }

    /** HTTP status of the answer; 0 when the request failed on this side. */
    public int status() {
        return status;
    }
}
