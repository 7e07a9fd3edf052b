package dev.ateom.snapshot;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

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

    static final int O_NONBLOCK = 0x800;
    static final int O_PATH = 0x200000;

    static final int AT_FDCWD = -100;
    static final int AT_SYMLINK_NOFOLLOW = 0x100;
    static final int AT_REMOVEDIR = 0x200;
    static final int AT_EMPTY_PATH = 0x1000;
    /** statx: type, mode, nlink, uid, gid, mtime, ino, size. */
    static final int STATX_BASIC = 0x7ff;
    static final int RENAME_EXCHANGE = 2;

    /** _IOW(0x94, 9, int): share the source file's extents (btrfs, xfs with reflink). */
    static final long FICLONE = 0x40049409L;

    static final int ENOENT = 2;
    static final int EINTR = 4;
    static final int ENXIO = 6;
    static final int EEXIST = 17;
    static final int EXDEV = 18;
    static final int ENOTDIR = 20;
    static final int EINVAL = 22;
    static final int ENOSYS = 38;
    static final int ELOOP = 40;
    static final int ENODATA = 61;
    static final int ENOTSUP = 95;

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

    // Directory-fd relative calls. Names are NUL-terminated byte arrays, never Java strings: a
    // Linux file name is any bytes but '/' and NUL, whatever the JVM's locale would decode.

    static native int openat(int dirFd, byte[] name, int flags, int mode) throws LastErrorException;

    static native int mkdirat(int dirFd, byte[] name, int mode) throws LastErrorException;

    static native int unlinkat(int dirFd, byte[] name, int flags) throws LastErrorException;

    static native int symlinkat(byte[] target, int dirFd, byte[] name) throws LastErrorException;

    static native long readlinkat(int dirFd, byte[] name, byte[] buffer, long size) throws LastErrorException;

    static native int linkat(int oldDirFd, byte[] oldName, int newDirFd, byte[] newName, int flags) throws LastErrorException;

    static native int fchownat(int dirFd, byte[] name, int uid, int gid, int flags) throws LastErrorException;

    static native int utimensat(int dirFd, byte[] name, long[] times, int flags) throws LastErrorException;

    static native int renameat2(int oldDirFd, byte[] oldName, int newDirFd, byte[] newName, int flags) throws LastErrorException;

    /** struct statx is the same on every architecture (unlike struct stat); 256 bytes. */
    static native int statx(int dirFd, byte[] name, int flags, int mask, byte[] statx) throws LastErrorException;

    /** glibc >= 2.30: raw struct linux_dirent64 records. */
    static native long getdents64(int fd, Pointer buffer, long size) throws LastErrorException;

    static native long read(int fd, Pointer buffer, long count) throws LastErrorException;

    static native long pread(int fd, Pointer buffer, long count, long offset) throws LastErrorException;

    static native long pwrite(int fd, Pointer buffer, long count, long offset) throws LastErrorException;

    /** glibc >= 2.27; the offsets are one-element arrays (loff_t *), neither descriptor's file offset moves. */
    static native long copy_file_range(int fdIn, long[] offsetIn, int fdOut, long[] offsetOut, long length, int flags)
            throws LastErrorException;

    static native long flistxattr(int fd, byte[] list, long size) throws LastErrorException;

    static native long fgetxattr(int fd, byte[] name, byte[] value, long size) throws LastErrorException;

    static native int fsetxattr(int fd, byte[] name, byte[] value, long size, int flags) throws LastErrorException;
}
