package dev.ateom.network.netlink;

/**
 * An IPv4 route as an RTM_GETROUTE dump shows it: destination (big-endian int) and prefix length, routing table,
 * route type ({@code 1} unicast, {@code 2} local, ...) and output interface index (0 when it has none).
 */
public record RouteEntry(int destination, int prefixLength, int table, int type, int outputInterface) {
    public static final int TYPE_UNICAST = 1;
    public static final int TYPE_LOCAL = 2;
    public static final int TYPE_BROADCAST = 3;
}
