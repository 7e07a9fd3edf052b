package dev.ateom.store;

/** How a store treats {@code PUT} with {@code If-None-Match: *} on an existing key. */
public enum ConditionalWrites {
    /** Refused with 412, also when several writers race: leases are safe. */
    HONOURED,
    /** Answered 200 and overwritten (s3proxy 2.7.0): the worst case, a lease would be silently stolen. */
    IGNORED,
    /** 412 one after the other, but more than one of several concurrent writers got 200 (s3proxy 2.9.0). */
    RACY,
    /** The header itself is rejected (400/501): no overwrite, but no leases either. */
    REFUSED
}
