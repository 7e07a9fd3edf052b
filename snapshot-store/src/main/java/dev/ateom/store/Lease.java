package dev.ateom.store;

import java.time.Instant;
import java.util.Objects;

/**
 * {@code leases/<sandbox-id>}: the host that runs a sandbox moved through the store. {@code enforced} is false for
 * a lease granted with leases off (nothing was written to the store).
 */
public record Lease(String sandboxId, String hostId, Instant acquiredAt, boolean enforced) {
    public Lease {
        Objects.requireNonNull(sandboxId, "sandboxId");
        Objects.requireNonNull(hostId, "hostId");
        Objects.requireNonNull(acquiredAt, "acquiredAt");
    }
}
