package dev.ateom.network;

/**
 * The /30 of a slot: the host-side veth holds {@link #host()}, the slot-side veth {@link #slot()} (the address the
 * slot's guest is translated to, so the outside tells sandboxes apart).
 */
public record SlotAddresses(Ipv4Cidr network, Ipv4Address host, Ipv4Address slot) {
    public static final int PREFIX_LENGTH = 30;

    /** The {@code index}-th /30 of {@code pool}. */
    public static SlotAddresses of(Ipv4Cidr pool, int index) {
        if (index < 0 || index >= pool.size() / 4) {
            throw new IllegalArgumentException("slot " + index + " is outside " + pool + " (" + pool.size() / 4 + " slots)");
        }
        Ipv4Address network = pool.network().plus(4 * index);
        return new SlotAddresses(new Ipv4Cidr(network, PREFIX_LENGTH), network.plus(1), network.plus(2));
    }
}
