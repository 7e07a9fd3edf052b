package dev.ateom.network;

import java.util.ArrayList;
import java.util.List;

/**
 * Destinations a sandbox may not reach unless its policy allows them explicitly: networks that lead to the host,
 * its neighbours or its cloud rather than to the internet.
 */
public final class DefaultDenied {
    /** In order: "this" network, RFC 1918, RFC 6598 shared space (cloud-internal services, e.g. a metadata server
     * at 100.100.100.200), loopback, link-local (the guest reaches its gateway inside the slot, never through this),
     * the metadata address on its own (so allowing link-local does not allow it), multicast, reserved and broadcast. */
    public static final List<Ipv4Cidr> RANGES = List.of(
            Ipv4Cidr.parse("0.0.0.0/8"), Ipv4Cidr.parse("10.0.0.0/8"), Ipv4Cidr.parse("100.64.0.0/10"), Ipv4Cidr.parse("127.0.0.0/8"),
            Ipv4Cidr.parse("169.254.0.0/16"), Ipv4Cidr.parse("169.254.169.254/32"), Ipv4Cidr.parse("172.16.0.0/12"),
            Ipv4Cidr.parse("192.168.0.0/16"), Ipv4Cidr.parse("224.0.0.0/4"), Ipv4Cidr.parse("240.0.0.0/4"));

    private DefaultDenied() {
    }

    /** {@link #RANGES} plus the slot pool (other sandboxes and the host's ends of their links). */
    public static List<Ipv4Cidr> withPool(Ipv4Cidr pool) {
        List<Ipv4Cidr> all = new ArrayList<>(RANGES);
        all.add(pool);
        return all;
    }
}
