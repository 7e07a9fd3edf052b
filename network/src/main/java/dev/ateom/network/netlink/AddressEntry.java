package dev.ateom.network.netlink;

/** An IPv4 interface address ({@code address} as a big-endian int) as an RTM_GETADDR dump shows it. */
public record AddressEntry(int interfaceIndex, int address, int prefixLength) {
}
