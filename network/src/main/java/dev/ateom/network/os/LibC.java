package dev.ateom.network.os;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * The Linux libc calls the network slots need and the JDK lacks (x86_64 / aarch64 glibc): namespaces,
 * mounts, {@code /dev/net/tun} ioctls and raw netlink sockets. Direct mapping, as in the other modules.
 */
public final class LibC {
    static {
        Native.register("c");
    }

    private LibC() {
    }

    public static final int O_RDONLY = 0;
    public static final int O_RDWR = 2;
    public static final int O_CREAT = 0x40;
    public static final int O_EXCL = 0x80;
    public static final int O_NONBLOCK = 0x800;
    public static final int O_CLOEXEC = 0x80000;

    public static final int CLONE_NEWNET = 0x40000000;
    private static final int F_DUPFD_CLOEXEC = 1030;

    public static final long MS_BIND = 4096;
    public static final long MS_REC = 16384;
    public static final long MS_SHARED = 1L << 20;
    public static final int MNT_DETACH = 2;

    public static final int AF_NETLINK = 16;
    public static final int SOCK_RAW = 3;
    public static final int SOCK_CLOEXEC = 0x80000;

    public static final short POLLIN = 0x1;
    public static final short POLLOUT = 0x4;

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EAGAIN = 11;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int ENOBUFS = 105;

    public static native int open(String path, int flags, int mode) throws LastErrorException;

    public static native int close(int fd) throws LastErrorException;

    /** Closes {@code fd}, ignoring that it may be closed already (nothing is left to release then). */
    public static void closeQuietly(int fd) {
        try {
            close(fd);
        } catch (LastErrorException ignored) {
            // already closed
        }
    }

    public static native long read(int fd, Pointer buffer, long count) throws LastErrorException;

    public static native long write(int fd, Pointer buffer, long count) throws LastErrorException;

    public static native int ioctl(int fd, long request, Pointer argument) throws LastErrorException;

    /** {@code fcntl(fd, F_DUPFD_CLOEXEC, 0)}: a new descriptor of the same open file. */
    public static int dup(int fd) throws LastErrorException {
        return fcntl(fd, F_DUPFD_CLOEXEC, 0);
    }

    private static native int fcntl(int fd, int command, int argument) throws LastErrorException;

    public static native int setns(int fd, int nsType) throws LastErrorException;

    public static native int unshare(int flags) throws LastErrorException;

    public static native int mount(String source, String target, String fsType, long flags, Pointer data) throws LastErrorException;

    public static native int umount2(String target, int flags) throws LastErrorException;

    public static native int socket(int domain, int type, int protocol) throws LastErrorException;

    public static native int bind(int fd, Pointer address, int length) throws LastErrorException;

    public static native long send(int fd, Pointer buffer, long length, int flags) throws LastErrorException;

    public static native long recv(int fd, Pointer buffer, long length, int flags) throws LastErrorException;

    public static native int setsockopt(int fd, int level, int name, Pointer value, int length) throws LastErrorException;

    public static native int poll(Pointer fds, long count, int timeoutMillis) throws LastErrorException;

    /** The symbolic name of an errno value, for messages ({@code EEXIST}, ...). */
    public static String errnoName(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EINTR -> "EINTR";
            case EAGAIN -> "EAGAIN";
            case EBUSY -> "EBUSY";
            case EEXIST -> "EEXIST";
            case ENODEV -> "ENODEV";
            case EINVAL -> "EINVAL";
            case 13 -> "EACCES";
            case 24 -> "EMFILE";
            case 95 -> "EOPNOTSUPP";
            case 98 -> "EADDRINUSE";
            case 99 -> "EADDRNOTAVAIL";
            case ENOBUFS -> "ENOBUFS";
            case 101 -> "ENETUNREACH";
            case 113 -> "EHOSTUNREACH";
            default -> "errno " + errno;
        };
    }
}
