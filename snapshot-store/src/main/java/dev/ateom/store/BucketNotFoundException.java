package dev.ateom.store;

/** The bucket of the store's location does not exist on the endpoint. */
public final class BucketNotFoundException extends StoreException {
    public BucketNotFoundException(String bucket, Throwable cause) {
        super("bucket '" + bucket + "' does not exist", StoreOption.LOCATION, cause);
    }
}
