package dev.ateom.network;

/** An IPv4 network: an address with its host bits zero, and a prefix length 0-32. */
public record Ipv4Cidr(Ipv4Address network, int prefixLength) implements Comparable<Ipv4Cidr> {

    public Ipv4Cidr {
        if (prefixLength < 0 || prefixLength > 32) {
            throw new IllegalArgumentException("prefix length " + prefixLength + " is not within 0-32");
        }
        if ((network.bits() & ~mask(prefixLength)) != 0) {
            throw new IllegalArgumentException(network + "/" + prefixLength + " has host bits set (the network is "
                    + new Ipv4Address(network.bits() & mask(prefixLength)) + "/" + prefixLength + ")");
        }
    }

    /**
     * {@code a.b.c.d/n}; a bare address means {@code /32}. Host bits must be zero: {@code 10.1.2.3/8} is refused
     * rather than guessed at. IPv6 is refused with its own reason (slots are IPv4 only).
     */
    public static Ipv4Cidr parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty, expected an IPv4 CIDR such as 203.0.113.0/24");
        }
        if (text.contains(":")) {
            throw new IllegalArgumentException("'" + text + "' is IPv6; sandbox networks are IPv4 only");
        }
        int slash = text.indexOf('/');
        if (slash < 0) {
            return new Ipv4Cidr(Ipv4Address.parse(text), 32);
        }
        String length = text.substring(slash + 1);
        if (length.isEmpty() || length.length() > 2 || !length.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException("'" + text + "' has no valid prefix length (0-32) after '/'");
        }
        return new Ipv4Cidr(Ipv4Address.parse(text.substring(0, slash)), Integer.parseInt(length));
    }

    static int mask(int prefixLength) {
        return prefixLength == 0 ? 0 : -1 << (32 - prefixLength);
    }

    /** First address as an unsigned number. */
    public long first() {
        return network.unsigned();
    }

    /** Last address as an unsigned number. */
    public long last() {
        return first() + size() - 1;
    }

    /** Number of addresses (2^(32-prefix)). */
    public long size() {
        return 1L << (32 - prefixLength);
    }

    public boolean contains(Ipv4Address address) {
        return (address.bits() & mask(prefixLength)) == network.bits();
    }

    public boolean overlaps(Ipv4Cidr other) {
        return first() <= other.last() && other.first() <= last();
    }

    @Override
    public int compareTo(Ipv4Cidr other) {
        int byNetwork = network.compareTo(other.network);
        return byNetwork != 0 ? byNetwork : Integer.compare(prefixLength, other.prefixLength);
    }

    @Override
    public String toString() {
        return network + "/" + prefixLength;
    }
}
