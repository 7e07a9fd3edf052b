package dev.ateom.network.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** The attributes of a received netlink message (or of a nested attribute), by type; the last of a type wins. */
final class NetlinkAttributes {
    /** Masks off NLA_F_NESTED and NLA_F_NET_BYTEORDER. */
    private static final int TYPE_MASK = 0x3fff;

    /** Whole attributes (header included) by type. */
    private final Map<Integer, ByteBuffer> attributes = new HashMap<>();

    private NetlinkAttributes() {
    }

    /** Parses the attributes in {@code region} (position to limit). */
    static NetlinkAttributes parse(ByteBuffer region) {
        var parsed = new NetlinkAttributes();
        ByteBuffer view = region.slice().order(ByteOrder.nativeOrder());
        while (view.remaining() >= 4) {
            int start = view.position();
            int length = view.getShort(start) & 0xffff;
            int type = view.getShort(start + 2) & TYPE_MASK;
            if (length < 4 || start + length > view.limit()) {
                break;
            }
            parsed.attributes.put(type, view.slice(start, length).order(ByteOrder.nativeOrder()));
            view.position(Math.min(view.limit(), start + NetlinkMessage.align(length)));
        }
        return parsed;
    }

    boolean has(int type) {
        return attributes.containsKey(type);
    }

    /** The whole attribute, header included (for copying it into a request). */
    ByteBuffer raw(int type) {
        return attributes.get(type);
    }

    /** The value of an attribute, or null. */
    ByteBuffer value(int type) {
        ByteBuffer whole = attributes.get(type);
        return whole == null ? null : whole.slice(4, whole.limit() - 4).order(ByteOrder.nativeOrder());
    }

    NetlinkAttributes nested(int type) {
        ByteBuffer value = value(type);
        return value == null ? new NetlinkAttributes() : parse(value);
    }

    String string(int type) {
        ByteBuffer value = value(type);
        if (value == null) {
            return null;
        }
        byte[] bytes = new byte[value.remaining()];
        value.get(bytes);
        int end = 0;
        while (end < bytes.length && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, 0, end, StandardCharsets.US_ASCII);
    }

    /** A 32-bit attribute in host order, or {@code fallback}. */
    int u32(int type, int fallback) {
        ByteBuffer value = value(type);
        return value == null || value.remaining() < 4 ? fallback : value.getInt(0);
    }

    /** An IPv4 address attribute (network order) as an int, or {@code fallback}. */
    int ipv4(int type, int fallback) {
        ByteBuffer value = value(type);
        return value == null || value.remaining() < 4 ? fallback : value.order(ByteOrder.BIG_ENDIAN).getInt(0);
    }
}
