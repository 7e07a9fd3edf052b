package dev.ateom.store;

/** Another host holds the lease of this sandbox. */
public final class LeaseHeldException extends StoreException {
    private final Lease lease;

    public LeaseHeldException(Lease lease) {
        super("sandbox " + lease.sandboxId() + " is leased by host " + lease.hostId() + " since " + lease.acquiredAt());
        this.lease = lease;
    }

    public Lease lease() {
        return lease;
    }
}
