package dev.ateom.microvm.extension;

import java.util.Optional;

/**
 * Something started with the daemon that the daemon itself does not know, found with {@link java.util.ServiceLoader}
 * on the class path (the e2b module's E2B API is one): the daemon's jar never names it, so a module above the domain
 * plugs in without the domain learning its words.
 */
public interface DaemonExtension {
    /**
     * Starts what the configuration asks of this extension, after the daemon's own API listens. Empty when the
     * configuration does not turn it on. The handle is closed at stop before the sandboxes are suspended.
     */
    Optional<AutoCloseable> start(ExtensionContext context);
}
