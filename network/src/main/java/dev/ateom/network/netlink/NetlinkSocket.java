package dev.ateom.network.netlink;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import dev.ateom.network.os.LibC;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * One netlink socket, opened in the network namespace of the thread that opens it (and bound to that namespace
 * for its whole life, whichever thread uses it later). Requests are answered synchronously: {@link #request}
 * waits for the kernel's acknowledgement, {@link #dump} collects a multi-part answer. Not thread-safe.
 */
final class NetlinkSocket implements AutoCloseable {
    static final int NETLINK_ROUTE = 0;
    static final int NETLINK_NETFILTER = 12;

    static final int NLM_F_REQUEST = 0x1;
    static final int NLM_F_MULTI = 0x2;
    static final int NLM_F_ACK = 0x4;
    static final int NLM_F_DUMP = 0x300;
    static final int NLM_F_EXCL = 0x200;
    static final int NLM_F_CREATE = 0x400;
    private static final int NLM_F_ACK_TLVS = 0x200;

    private static final int NLMSG_ERROR = 2;
    private static final int NLMSG_DONE = 3;
    private static final int SOL_NETLINK = 270;
    private static final int NETLINK_CAP_ACK = 10;
    private static final int NETLINK_EXT_ACK = 11;
    private static final int NLMSGERR_ATTR_MSG = 1;
    private static final int RECEIVE_BUFFER = 64 * 1024;
    private static final int TIMEOUT_MS = 10_000;

    private final int fd;
    private final boolean extendedAcks;
    private final Memory receiveBuffer = new Memory(RECEIVE_BUFFER);
    private int sequence = 1;

    private NetlinkSocket(int fd, boolean extendedAcks) {
        this.fd = fd;
        this.extendedAcks = extendedAcks;
    }

    static NetlinkSocket open(int protocol) throws IOException {
        int fd;
        try {
            fd = LibC.socket(LibC.AF_NETLINK, LibC.SOCK_RAW | LibC.SOCK_CLOEXEC, protocol);
        } catch (LastErrorException e) {
            throw new IOException("netlink socket (protocol " + protocol + "): " + LibC.errnoName(e.getErrorCode()), e);
        }
        try (Memory address = new Memory(12)) {
            address.clear();
            address.setShort(0, (short) LibC.AF_NETLINK);
            LibC.bind(fd, address, 12);
        } catch (LastErrorException e) {
            LibC.closeQuietly(fd);
            throw new IOException("netlink bind: " + LibC.errnoName(e.getErrorCode()), e);
        }
        boolean extended = setFlag(fd, NETLINK_CAP_ACK) && setFlag(fd, NETLINK_EXT_ACK);
        return new NetlinkSocket(fd, extended);
    }

    private static boolean setFlag(int fd, int option) {
        try (Memory one = new Memory(4)) {
            one.setInt(0, 1);
            LibC.setsockopt(fd, SOL_NETLINK, option, one, 4);
            return true;
        } catch (LastErrorException e) {
            return false;
        }
    }

    /** Sends {@code message} (its flags must ask for an ACK) and waits for the acknowledgement. */
    void request(NetlinkMessage message, String operation) throws IOException {
        int seq = sequence++;
        send(message.build(seq), operation);
        receive(seq, operation, null);
    }

    /** Sends a dump request and returns every answer message (whole messages, header included). */
    List<ByteBuffer> dump(NetlinkMessage message, String operation) throws IOException {
        int seq = sequence++;
        send(message.build(seq), operation);
        List<ByteBuffer> messages = new ArrayList<>();
        receive(seq, operation, messages);
        return messages;
    }

    private void send(byte[] bytes, String operation) throws IOException {
        try (Memory buffer = new Memory(bytes.length)) {
            buffer.write(0, bytes, 0, bytes.length);
            LibC.send(fd, buffer, bytes.length, 0);
        } catch (LastErrorException e) {
            throw new IOException(operation + ": netlink send: " + LibC.errnoName(e.getErrorCode()), e);
        }
    }

    /** Reads until the acknowledgement (collect == null) or the end of the dump for {@code seq}. */
    private void receive(int seq, String operation, List<ByteBuffer> collect) throws IOException {
        long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000L;
        while (true) {
            awaitReadable(deadline, operation);
            long n;
            try {
                n = LibC.recv(fd, receiveBuffer, RECEIVE_BUFFER, 0);
            } catch (LastErrorException e) {
                if (e.getErrorCode() == LibC.EINTR || e.getErrorCode() == LibC.EAGAIN) {
                    continue;
                }
                throw new IOException(operation + ": netlink recv: " + LibC.errnoName(e.getErrorCode()), e);
            }
            ByteBuffer data = receiveBuffer.getByteBuffer(0, n).order(ByteOrder.nativeOrder());
            int offset = 0;
            while (offset + NetlinkMessage.HEADER_LENGTH <= n) {
                int length = data.getInt(offset);
                int type = data.getShort(offset + 4) & 0xffff;
                int flags = data.getShort(offset + 6) & 0xffff;
                int messageSeq = data.getInt(offset + 8);
                if (length < NetlinkMessage.HEADER_LENGTH || offset + length > n) {
                    throw new IOException(operation + ": malformed netlink answer");
                }
                if (messageSeq == seq) {
                    if (type == NLMSG_ERROR) {
                        int error = data.getInt(offset + 16);
                        if (error != 0) {
                            throw new NetlinkException(operation, -error, kernelMessage(data, offset, length, flags));
                        }
                        if (collect == null) {
                            return;
                        }
                    } else if (type == NLMSG_DONE) {
                        int error = length >= 20 ? data.getInt(offset + 16) : 0;
                        if (error < 0) {
                            throw new NetlinkException(operation, -error, kernelMessage(data, offset, length, flags));
                        }
                        return;
                    } else if (collect != null) {
                        ByteBuffer copy = ByteBuffer.allocate(length).order(ByteOrder.nativeOrder());
                        copy.put(data.slice(offset, length)).flip();
                        collect.add(copy);
                        if ((flags & NLM_F_MULTI) == 0) {
                            return;
                        }
                    }
                }
                offset += NetlinkMessage.align(length);
            }
        }
    }

    /** The extended-ack text after a capped error message ({@code nlmsgerr} + the request's header), if any. */
    private String kernelMessage(ByteBuffer data, int offset, int length, int flags) {
        if (!extendedAcks || (flags & NLM_F_ACK_TLVS) == 0) {
            return null;
        }
        int tlvStart = offset + 16 + 4 + NetlinkMessage.HEADER_LENGTH;
        if (tlvStart >= offset + length) {
            return null;
        }
        return NetlinkAttributes.parse(data.slice(tlvStart, offset + length - tlvStart)).string(NLMSGERR_ATTR_MSG);
    }

    private void awaitReadable(long deadline, String operation) throws IOException {
        try (Memory pollfd = new Memory(8)) {
            while (true) {
                long remainingMs = (deadline - System.nanoTime()) / 1_000_000;
                if (remainingMs <= 0) {
                    throw new IOException(operation + ": no netlink answer within " + TIMEOUT_MS + " ms");
                }
                pollfd.setInt(0, fd);
                pollfd.setShort(4, LibC.POLLIN);
                pollfd.setShort(6, (short) 0);
                try {
                    if (LibC.poll(pollfd, 1, (int) Math.min(remainingMs, 1000)) > 0) {
                        return;
                    }
                } catch (LastErrorException e) {
                    if (e.getErrorCode() != LibC.EINTR) {
                        throw new IOException(operation + ": poll: " + LibC.errnoName(e.getErrorCode()), e);
                    }
                }
            }
        }
    }

    @Override
    public void close() {
        receiveBuffer.close();
        LibC.closeQuietly(fd);
    }
}
