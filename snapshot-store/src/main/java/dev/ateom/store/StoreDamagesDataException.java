package dev.ateom.store;

/**
 * The store does not give back what was written to it: an object read back differs from the bytes sent (the start-up
 * probe's object, or what a push wrote). Such a store cannot be used; nothing that depends on the damaged object counts.
 */
public final class StoreDamagesDataException extends StoreException {
    public StoreDamagesDataException(String message) {
        super(message, StoreOption.ENDPOINT, null);
    }
}
