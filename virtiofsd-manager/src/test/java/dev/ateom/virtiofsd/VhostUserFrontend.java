package dev.ateom.virtiofsd;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * Just enough of a vhost-user frontend (the VMM side) to talk to virtiofsd: connect, GET_FEATURES, SET_OWNER,
 * disconnect. Messages are a 12-byte header (request, flags, payload size; little endian) and a payload.
 */
final class VhostUserFrontend implements AutoCloseable {

    static final int GET_FEATURES = 1;
    static final int SET_OWNER = 3;
    private static final int VERSION_1 = 0x1;
    private static final int REPLY_FLAG = 0x4;
    /** VHOST_USER_F_PROTOCOL_FEATURES: every vhost-user backend that speaks the protocol sets it. */
    static final long PROTOCOL_FEATURES_BIT = 1L << 30;

    private final SocketChannel channel;

    private VhostUserFrontend(SocketChannel channel) {
        this.channel = channel;
    }

    static VhostUserFrontend connect(Path socket) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(socket));
        return new VhostUserFrontend(channel);
    }

    long getFeatures() throws IOException {
        send(GET_FEATURES);
        ByteBuffer reply = ByteBuffer.allocate(12 + 8).order(ByteOrder.LITTLE_ENDIAN);
        while (reply.hasRemaining()) {
            if (channel.read(reply) < 0) throw new IOException("virtiofsd closed the connection during GET_FEATURES");
        }
        reply.flip();
        int request = reply.getInt();
        int flags = reply.getInt();
        int size = reply.getInt();
        if (request != GET_FEATURES || (flags & REPLY_FLAG) == 0 || size != 8) {
            throw new IOException("unexpected reply header: request " + request + " flags " + flags + " size " + size);
        }
        return reply.getLong();
    }

    void setOwner() throws IOException {
        send(SET_OWNER);
    }

    private void send(int request) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(request).putInt(VERSION_1).putInt(0).flip();
        while (header.hasRemaining()) channel.write(header);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
