package dev.ateom.store;

/** No credentials could be found, or the store refused the ones given. */
public final class StoreCredentialsException extends StoreException {
    public StoreCredentialsException(String message, Throwable cause) {
        super(message, StoreOption.CREDENTIALS, cause);
    }
}
