package dev.ateom.microvm.config;

import dev.ateom.store.StoreSettings;

/**
 * The snapshot store settings ({@code --snapshot-store} and the options beside it), checked for form; whether the
 * store answers is seen at start.
 *
 * @param settings      location, endpoint, region, path style, lease mode for the store client
 * @param cacheBytes    bound of the local chunk cache
 * @param pushOnSuspend every suspend pushes its snapshot in the background
 * @param hostId        this host's name in leases
 */
public record RemoteStoreConfig(StoreSettings settings, long cacheBytes, boolean pushOnSuspend, String hostId) {
}
