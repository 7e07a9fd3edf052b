package dev.ateom.store;

/** {@code ENFORCED}: adopting takes a lease, refused where the store cannot hold one. {@code OFF}: no leases (the operator's risk). */
public enum LeaseMode {
    ENFORCED,
    OFF
}
