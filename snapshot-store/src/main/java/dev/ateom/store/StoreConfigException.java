package dev.ateom.store;

/** A store setting that cannot be used as given (malformed location, endpoint, region). */
public final class StoreConfigException extends StoreException {
    public StoreConfigException(StoreOption option, String reason) {
        super(option.flag() + ": " + reason, option, null);
    }
}
