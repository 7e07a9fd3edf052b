package dev.ateom.network;

/** An IPv4 address; {@link #bits()} holds it in network order (the first octet in the top byte). */
public record Ipv4Address(int bits) implements Comparable<Ipv4Address> {

    /** Strict dotted quad: four decimal octets 0-255, no leading zeros. */
    public static Ipv4Address parse(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("'" + text + "' is not an IPv4 address (a.b.c.d)");
        }
        int bits = 0;
        for (String part : parts) {
            if (part.isEmpty() || part.length() > 3 || !part.chars().allMatch(Character::isDigit) || (part.length() > 1 && part.charAt(0) == '0')) {
                throw new IllegalArgumentException("'" + text + "' is not an IPv4 address (a.b.c.d)");
            }
            int octet = Integer.parseInt(part);
            if (octet > 255) {
                throw new IllegalArgumentException("'" + text + "' is not an IPv4 address: octet " + octet + " > 255");
            }
            bits = (bits << 8) | octet;
        }
        return new Ipv4Address(bits);
    }

    /** The address as an unsigned number (0 to 2^32-1). */
    public long unsigned() {
        return Integer.toUnsignedLong(bits);
    }

    public Ipv4Address plus(int offset) {
        return new Ipv4Address(bits + offset);
    }

    public byte[] octets() {
        return new byte[] {(byte) (bits >>> 24), (byte) (bits >>> 16), (byte) (bits >>> 8), (byte) bits};
    }

    @Override
    public int compareTo(Ipv4Address other) {
        return Integer.compareUnsigned(bits, other.bits);
    }

    @Override
    public String toString() {
        return (bits >>> 24) + "." + ((bits >>> 16) & 0xff) + "." + ((bits >>> 8) & 0xff) + "." + (bits & 0xff);
    }
}
