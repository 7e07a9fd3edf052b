package dev.ateom.network.netlink;

/** A network interface as an RTM_GETLINK dump shows it; {@code mac} holds its 48-bit address (0 when it has none). */
public record LinkEntry(int index, String name, boolean up, long mac) {
}
