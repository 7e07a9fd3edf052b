package dev.ateom.snapshot;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;

/**
 * The few Linux libc calls that the JDK does not expose (x86_64 / aarch64 glibc). JNA direct
 * mapping: several calls per extracted file, so the proxy overhead of interface mapping shows.
 */
final class LibC {
    static {
        Native.register("c");
    }

    private LibC() {
    }

    static final int O_RDONLY = 0;
    static final int O_WRONLY = 1;
    static final int O_RDWR = 2;
    static final int O_CREAT = 0x40;
    static final int O_EXCL = 0x80;
    static final int O_NOFOLLOW = 0x20000;
    static final int O_CLOEXEC = 0x80000;
    static final int O_DIRECTORY = 0x10000;

    static final int SEEK_DATA = 3;
    static final int SEEK_HOLE = 4;

    static final int FALLOC_FL_KEEP_SIZE = 0x01;
    static final int FALLOC_FL_PUNCH_HOLE = 0x02;

    static final int AT_FDCWD = -100;
    static final int RENAME_EXCHANGE = 2;

    /** _IOW(0x94, 9, int): share the source file's extents (btrfs, xfs with reflink). */
    static final long FICLONE = 0x40049409L;

    static final int ENXIO = 6;

    /** timespec.tv_nsec value that leaves that time unchanged. */
    static final long UTIME_OMIT = (1L << 30) - 2;

    static native int open(String path, int flags, int mode) throws LastErrorException;

    static native int close(int fd) throws LastErrorException;

    static native long lseek(int fd, long offset, int whence) throws LastErrorException;

    static native int fallocate(int fd, int mode, long offset, long length) throws LastErrorException;

    static native int ioctl(int fd, long request, long argument) throws LastErrorException;

    static native int renameat2(int oldDirFd, String oldPath, int newDirFd, String newPath, int flags) throws LastErrorException;

    static native int syncfs(int fd) throws LastErrorException;

    /** Size of the NUL-separated xattr name list (0: none); does not follow symlinks. */
    static native long llistxattr(String path, byte[] list, long size) throws LastErrorException;

    static native long pwrite(int fd, byte[] buffer, long count, long offset) throws LastErrorException;

    static native int ftruncate(int fd, long length) throws LastErrorException;

    static native int fchown(int fd, int uid, int gid) throws LastErrorException;

    static native int fchmod(int fd, int mode) throws LastErrorException;

    /** times: {atime sec, atime nsec, mtime sec, mtime nsec}. */
    static native int futimens(int fd, long[] times) throws LastErrorException;
}
