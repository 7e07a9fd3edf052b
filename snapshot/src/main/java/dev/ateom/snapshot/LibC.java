package dev.ateom.snapshot;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;

/** The few Linux libc calls that the JDK does not expose (x86_64 / aarch64 glibc). */
interface LibC extends Library {
    LibC INSTANCE = Native.load("c", LibC.class);

    int O_RDONLY = 0;
    int O_WRONLY = 1;
    int O_RDWR = 2;
    int O_CREAT = 0x40;
    int O_EXCL = 0x80;
    int O_NOFOLLOW = 0x20000;
    int O_CLOEXEC = 0x80000;
    int O_DIRECTORY = 0x10000;

    int SEEK_DATA = 3;
    int SEEK_HOLE = 4;

    int FALLOC_FL_KEEP_SIZE = 0x01;
    int FALLOC_FL_PUNCH_HOLE = 0x02;

    int AT_FDCWD = -100;
    int RENAME_EXCHANGE = 2;

    /** _IOW(0x94, 9, int): share the source file's extents (btrfs, xfs with reflink). */
    long FICLONE = 0x40049409L;

    int ENXIO = 6;

    /** timespec.tv_nsec value that leaves that time unchanged. */
    long UTIME_OMIT = (1L << 30) - 2;

    int open(String path, int flags, int mode) throws LastErrorException;

    int close(int fd) throws LastErrorException;

    long lseek(int fd, long offset, int whence) throws LastErrorException;

    int fallocate(int fd, int mode, long offset, long length) throws LastErrorException;

    int ioctl(int fd, long request, long argument) throws LastErrorException;

    int renameat2(int oldDirFd, String oldPath, int newDirFd, String newPath, int flags) throws LastErrorException;

    int syncfs(int fd) throws LastErrorException;

    /** Size of the NUL-separated xattr name list (0: none); does not follow symlinks. */
    long llistxattr(String path, byte[] list, long size) throws LastErrorException;

    long pwrite(int fd, byte[] buffer, long count, long offset) throws LastErrorException;

    int ftruncate(int fd, long length) throws LastErrorException;

    int fchown(int fd, int uid, int gid) throws LastErrorException;

    int fchmod(int fd, int mode) throws LastErrorException;

    /** times: {atime sec, atime nsec, mtime sec, mtime nsec}. */
    int futimens(int fd, long[] times) throws LastErrorException;
}
