package dev.ateom.network;

import java.util.HexFormat;

/** A 48-bit Ethernet address. */
public record MacAddress(long bits) {

    public MacAddress {
        if ((bits & ~0xffff_ffff_ffffL) != 0) {
            throw new IllegalArgumentException("a MAC address has 48 bits");
        }
    }

    /** {@code 02:00:a9:fe:00:15} (six hex octets, colon-separated). */
    public static MacAddress parse(String text) {
        String[] parts = text.split(":", -1);
        if (parts.length != 6) {
            throw new IllegalArgumentException("'" + text + "' is not a MAC address (xx:xx:xx:xx:xx:xx)");
        }
        long bits = 0;
        for (String part : parts) {
            if (part.length() != 2) {
                throw new IllegalArgumentException("'" + text + "' is not a MAC address (xx:xx:xx:xx:xx:xx)");
            }
            bits = (bits << 8) | HexFormat.fromHexDigits(part);
        }
        return new MacAddress(bits);
    }

    public byte[] octets() {
        byte[] octets = new byte[6];
        for (int i = 0; i < 6; i++) {
            octets[i] = (byte) (bits >>> (40 - 8 * i));
        }
        return octets;
    }

    @Override
    public String toString() {
        return HexFormat.ofDelimiter(":").formatHex(octets());
    }
}
