package dev.ateom.network;

/** A host operation (netlink, nftables, namespaces) failed; whatever it had built is removed again. */
public final class NetworkSetupException extends NetworkException {
    NetworkSetupException(String message, Throwable cause) {
        super(message, cause);
    }
}
