package dev.ateom.network.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Builds one netlink message: {@code nlmsghdr}, a family header written with the {@code u8/u16/u32} calls, then
 * attributes ({@code rtattr}/{@code nlattr}: length, type, value, padded to 4 bytes), possibly nested.
 */
final class NetlinkMessage {
    static final int HEADER_LENGTH = 16;

    private ByteBuffer buffer = ByteBuffer.allocate(256).order(ByteOrder.nativeOrder());
    private final Deque<Integer> openNests = new ArrayDeque<>();

    NetlinkMessage(int type, int flags) {
        buffer.putInt(0).putShort((short) type).putShort((short) flags).putInt(0).putInt(0);
    }

    NetlinkMessage u8(int value) {
        ensure(1);
        buffer.put((byte) value);
        return this;
    }

    NetlinkMessage u16(int value) {
        ensure(2);
        buffer.putShort((short) value);
        return this;
    }

    NetlinkMessage u32(int value) {
        ensure(4);
        buffer.putInt(value);
        return this;
    }

    NetlinkMessage attribute(int type, byte[] value) {
        int length = 4 + value.length;
        ensure(align(length));
        buffer.putShort((short) length).putShort((short) type).put(value);
        pad();
        return this;
    }

    NetlinkMessage attributeU32(int type, int value) {
        return attribute(type, ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(value).array());
    }

    /** An IPv4 address attribute (network byte order). */
    NetlinkMessage attributeIpv4(int type, int address) {
        return attribute(type, ByteBuffer.allocate(4).order(ByteOrder.BIG_ENDIAN).putInt(address).array());
    }

    /** A NUL-terminated string attribute. */
    NetlinkMessage attributeString(int type, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        byte[] terminated = new byte[bytes.length + 1];
        System.arraycopy(bytes, 0, terminated, 0, bytes.length);
        return attribute(type, terminated);
    }

    /** An attribute copied verbatim (header and value) from a received message. */
    NetlinkMessage rawAttribute(ByteBuffer attribute) {
        byte[] bytes = new byte[attribute.remaining()];
        attribute.duplicate().get(bytes);
        ensure(align(bytes.length));
        buffer.put(bytes);
        pad();
        return this;
    }

    NetlinkMessage beginNested(int type) {
        ensure(4);
        openNests.push(buffer.position());
        buffer.putShort((short) 0).putShort((short) type);
        return this;
    }

    NetlinkMessage endNested() {
        int start = openNests.pop();
        buffer.putShort(start, (short) (buffer.position() - start));
        return this;
    }

    /** The finished message with its length and sequence number filled in. */
    byte[] build(int sequence) {
        if (!openNests.isEmpty()) {
            throw new IllegalStateException("unclosed nested attribute");
        }
        buffer.putInt(0, buffer.position());
        buffer.putInt(8, sequence);
        byte[] bytes = new byte[buffer.position()];
        buffer.duplicate().flip().get(bytes);
        return bytes;
    }

    static int align(int length) {
        return (length + 3) & ~3;
    }

    private void pad() {
        while ((buffer.position() & 3) != 0) {
            buffer.put((byte) 0);
        }
    }

    private void ensure(int more) {
        if (buffer.remaining() < more) {
            ByteBuffer bigger = ByteBuffer.allocate(Math.max(buffer.capacity() * 2, buffer.position() + more)).order(ByteOrder.nativeOrder());
            buffer.flip();
            bigger.put(buffer);
            buffer = bigger;
        }
    }
}
