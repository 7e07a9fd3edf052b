package dev.ateom.network.os;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A TAP device created by opening {@code /dev/net/tun} in the calling thread's network namespace (the device is
 * born in the namespace of whoever opens the file). The device lives as long as some descriptor of it is open:
 * this object's, and the dup CHV receives over its API socket.
 *
 * <p>The flags are always {@link #FLAGS}: the same on the first boot and on every restore, as CHV and QEMU expect
 * for the virtio-net state they carry across (CHV re-issues {@code TUNSETIFF} with exactly these and checks
 * nothing else; a VNET header is what its virtio-net backend reads and writes).
 */
public final class TapDevice implements AutoCloseable {
    public static final int IFF_TAP = 0x0002;
    public static final int IFF_NO_PI = 0x1000;
    public static final int IFF_VNET_HDR = 0x4000;
    public static final int FLAGS = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;

    /** {@code _IOW('T', 202, int)} */
    private static final long TUNSETIFF = 0x400454caL;
    /** {@code _IOR('T', 210, unsigned int)} */
    private static final long TUNGETIFF = 0x800454d2L;
    private static final int IFNAMSIZ = 16;
    private static final int IFREQ_SIZE = 40;

    private final String name;
    private final int fd;
    private volatile boolean closed;

    private TapDevice(String name, int fd) {
        this.name = name;
        this.fd = fd;
    }

    /** Creates TAP {@code name} in the calling thread's namespace (run inside {@link NetNamespace#call}). */
    public static TapDevice create(String name) throws IOException {
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length == 0 || bytes.length >= IFNAMSIZ) {
            throw new IllegalArgumentException("interface name must have 1-15 characters: '" + name + "'");
        }
        int fd;
        try {
            fd = LibC.open("/dev/net/tun", LibC.O_RDWR | LibC.O_CLOEXEC, 0);
        } catch (LastErrorException e) {
            throw new IOException("cannot open /dev/net/tun: " + LibC.errnoName(e.getErrorCode()), e);
        }
        try (Memory ifreq = new Memory(IFREQ_SIZE)) {
            ifreq.clear();
            ifreq.write(0, bytes, 0, bytes.length);
            ifreq.setShort(IFNAMSIZ, (short) FLAGS);
            LibC.ioctl(fd, TUNSETIFF, ifreq);
            return new TapDevice(name, fd);
        } catch (LastErrorException e) {
            LibC.closeQuietly(fd);
            throw new IOException("cannot create TAP " + name + " (TUNSETIFF): " + LibC.errnoName(e.getErrorCode()), e);
        }
    }

    /** The {@code TUNGETIFF} flags of an open TAP descriptor. */
    public static int flagsOf(int fd) throws IOException {
        try (Memory ifreq = new Memory(IFREQ_SIZE)) {
            ifreq.clear();
            LibC.ioctl(fd, TUNGETIFF, ifreq);
            return ifreq.getShort(IFNAMSIZ) & 0xffff;
        } catch (LastErrorException e) {
            throw new IOException("TUNGETIFF on fd " + fd + ": " + LibC.errnoName(e.getErrorCode()), e);
        }
    }

    public String name() {
        return name;
    }

    /** The descriptor to hand to the VMM (SCM_RIGHTS); stays owned by this object. */
    public int fd() {
        if (closed) {
            throw new IllegalStateException("TAP " + name + " is closed");
        }
        return fd;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        LibC.closeQuietly(fd);
    }
}
