package dev.ateom.store;

import java.util.Locale;

/** Leases are wanted but the store does not honour conditional writes, so one cannot be taken safely. */
public final class LeasesUnavailableException extends StoreException {
    public LeasesUnavailableException(ProbeResult probe) {
        super("the store cannot hold leases: conditional writes are " + probe.conditionalWrites().name().toLowerCase(Locale.ROOT)
                + " (" + probe.detail() + "); two hosts could run the same sandbox. Set leases off to adopt anyway",
                StoreOption.LEASES, null);
    }
}
