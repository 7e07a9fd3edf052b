package dev.ateom.snapshot;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Directory-fd relative file calls on byte names: only one name's length limits them (never the
 * whole path's), no symlink is followed, and no name is decoded with the JVM's locale. Names are
 * plain bytes (without NUL); errors are {@link NativeCallException}s naming the call and the name.
 */
final class At {
    private static final byte[] EMPTY = {0};
    private static final int DIRENT_BUFFER_BYTES = 32 * 1024;
    private static final ThreadLocal<Memory> DIRENT_BUFFER = ThreadLocal.withInitial(() -> new Memory(DIRENT_BUFFER_BYTES));
    private static final byte[] USER = {'u', 's', 'e', 'r', '.'};
    private static final byte[] DOT_DOT_C = {'.', '.', 0};
    private static final int DIRECTORY_FLAGS = LibC.O_RDONLY | LibC.O_DIRECTORY | LibC.O_NOFOLLOW | LibC.O_CLOEXEC;

    private At() {
    }

    /** One entry of a directory listing; {@code type} is the dirent d_type (0 = unknown). */
    record DirEntry(byte[] name, int type) {
        static final int DT_DIR = 4;
    }

    static int openDirectory(Path path) throws IOException {
        try {
            return LibC.open(path.toString(), DIRECTORY_FLAGS, 0);
        } catch (LastErrorException e) {
            throw new NativeCallException("open directory", path.toString(), e);
        }
    }

    static int openDirectory(int dirFd, byte[] name) throws IOException {
        return open(dirFd, name, DIRECTORY_FLAGS, 0);
    }

    /** The parent of an open directory (to walk back up without keeping every descriptor open). */
    static int openParent(int dirFd) throws IOException {
        try {
            return LibC.openat(dirFd, DOT_DOT_C, DIRECTORY_FLAGS, 0);
        } catch (LastErrorException e) {
            throw new NativeCallException("openat", "'..'", e);
        }
    }

    /** A regular file for reading: no symlink followed, and a fifo or device never blocks the open. */
    static int openRegularForReading(int dirFd, byte[] name) throws IOException {
        return open(dirFd, name, LibC.O_RDONLY | LibC.O_NOFOLLOW | LibC.O_NONBLOCK | LibC.O_CLOEXEC, 0);
    }

    /** A new file for writing (the name must not exist; never follows a symlink). */
    static int createFile(int dirFd, byte[] name) throws IOException {
        return open(dirFd, name, LibC.O_WRONLY | LibC.O_CREAT | LibC.O_EXCL | LibC.O_NOFOLLOW | LibC.O_CLOEXEC, 0600);
    }

    static int open(int dirFd, byte[] name, int flags, int mode) throws IOException {
        try {
            return LibC.openat(dirFd, ByteNames.c(name), flags, mode);
        } catch (LastErrorException e) {
            throw new NativeCallException("openat", quoted(name), e);
        }
    }

    static FileStatus stat(int dirFd, byte[] name) throws IOException {
        byte[] buffer = new byte[FileStatus.STATX_SIZE];
        try {
            LibC.statx(dirFd, ByteNames.c(name), LibC.AT_SYMLINK_NOFOLLOW, LibC.STATX_BASIC, buffer);
        } catch (LastErrorException e) {
            throw new NativeCallException("statx", quoted(name), e);
        }
        return FileStatus.parse(buffer);
    }

    static FileStatus stat(int fd) throws IOException {
        byte[] buffer = new byte[FileStatus.STATX_SIZE];
        try {
            LibC.statx(fd, EMPTY, LibC.AT_EMPTY_PATH, LibC.STATX_BASIC, buffer);
        } catch (LastErrorException e) {
            throw new NativeCallException("statx", "descriptor " + fd, e);
        }
        return FileStatus.parse(buffer);
    }

    static void mkdir(int dirFd, byte[] name, int mode) throws IOException {
        try {
            LibC.mkdirat(dirFd, ByteNames.c(name), mode);
        } catch (LastErrorException e) {
            throw new NativeCallException("mkdirat", quoted(name), e);
        }
    }

    static void unlink(int dirFd, byte[] name, boolean directory) throws IOException {
        try {
            LibC.unlinkat(dirFd, ByteNames.c(name), directory ? LibC.AT_REMOVEDIR : 0);
        } catch (LastErrorException e) {
            throw new NativeCallException("unlinkat", quoted(name), e);
        }
    }

    static void symlink(byte[] target, int dirFd, byte[] name) throws IOException {
        try {
            LibC.symlinkat(ByteNames.c(target), dirFd, ByteNames.c(name));
        } catch (LastErrorException e) {
            throw new NativeCallException("symlinkat", quoted(name), e);
        }
    }

    static void link(int fromDirFd, byte[] fromName, int dirFd, byte[] name) throws IOException {
        try {
            LibC.linkat(fromDirFd, ByteNames.c(fromName), dirFd, ByteNames.c(name), 0);
        } catch (LastErrorException e) {
            throw new NativeCallException("linkat", quoted(name), e);
        }
    }

    static byte[] readLink(int dirFd, byte[] name, long size) throws IOException {
        byte[] buffer = new byte[(int) Math.max(64, Math.min(size + 1, 1 << 16))];
        try {
            long length = LibC.readlinkat(dirFd, ByteNames.c(name), buffer, buffer.length);
            if (length >= buffer.length) {
                throw new IOException("symlink " + quoted(name) + " changed while being read");
            }
            return Arrays.copyOf(buffer, (int) length);
        } catch (LastErrorException e) {
            throw new NativeCallException("readlinkat", quoted(name), e);
        }
    }

    /** Owner and mtime of a symlink itself (a symlink has no mode of its own on Linux). */
    static void setSymlinkOwnerAndMtime(int dirFd, byte[] name, long uid, long gid, long mtimeSeconds, int mtimeNanos) throws IOException {
        byte[] cName = ByteNames.c(name);
        try {
            LibC.fchownat(dirFd, cName, (int) uid, (int) gid, LibC.AT_SYMLINK_NOFOLLOW);
            LibC.utimensat(dirFd, cName, new long[] {0, LibC.UTIME_OMIT, mtimeSeconds, mtimeNanos}, LibC.AT_SYMLINK_NOFOLLOW);
        } catch (LastErrorException e) {
            throw new NativeCallException("setting owner or mtime of symlink", quoted(name), e);
        }
    }

    /** Owner, then mode (chown clears setuid/setgid), then mtime, through a descriptor; atime is left alone. */
    static void setOwnerModeAndMtime(int fd, long uid, long gid, int mode, long mtimeSeconds, int mtimeNanos) throws IOException {
        try {
            LibC.fchown(fd, (int) uid, (int) gid);
            LibC.fchmod(fd, mode);
            LibC.futimens(fd, new long[] {0, LibC.UTIME_OMIT, mtimeSeconds, mtimeNanos});
        } catch (LastErrorException e) {
            throw new NativeCallException("setting owner, mode or mtime of", "descriptor " + fd, e);
        }
    }

    /** Every name in an open directory but "." and "..", in the directory's own order. */
    static List<DirEntry> list(int dirFd) throws IOException {
        List<DirEntry> entries = new ArrayList<>();
        Memory records = DIRENT_BUFFER.get();
        byte[] buffer = new byte[DIRENT_BUFFER_BYTES];
        while (true) {
            long length;
            try {
                length = LibC.getdents64(dirFd, records, DIRENT_BUFFER_BYTES);
            } catch (LastErrorException e) {
                throw new NativeCallException("getdents64", "descriptor " + dirFd, e);
            }
            if (length == 0) {
                return entries;
            }
            records.read(0, buffer, 0, (int) length); // only what the kernel filled: a byte[] argument would be copied whole both ways
            int offset = 0;
            while (offset < length) {
                int recordLength = (buffer[offset + 16] & 0xff) | (buffer[offset + 17] & 0xff) << 8; // little-endian u16
                int type = buffer[offset + 18];
                int nameStart = offset + 19;
                int nameEnd = nameStart;
                while (buffer[nameEnd] != 0) {
                    nameEnd++;
                }
                int nameLength = nameEnd - nameStart;
                boolean dot = nameLength == 1 && buffer[nameStart] == '.';
                boolean dotDot = nameLength == 2 && buffer[nameStart] == '.' && buffer[nameStart + 1] == '.';
                if (!dot && !dotDot) {
                    entries.add(new DirEntry(Arrays.copyOfRange(buffer, nameStart, nameEnd), type));
                }
                offset += recordLength;
            }
        }
    }

    /** Names of user.* xattrs of an open file (other namespaces are not archived). */
    static List<byte[]> userXattrNames(int fd) throws IOException {
        long size;
        try {
            size = LibC.flistxattr(fd, null, 0);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == LibC.ENOTSUP) {
                return List.of();
            }
            throw new NativeCallException("flistxattr", "descriptor " + fd, e);
        }
        if (size == 0) {
            return List.of();
        }
        byte[] list = new byte[(int) size];
        try {
            size = LibC.flistxattr(fd, list, list.length);
        } catch (LastErrorException e) {
            throw new NativeCallException("flistxattr", "descriptor " + fd, e);
        }
        List<byte[]> names = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < size; i++) {
            if (list[i] == 0) {
                byte[] name = Arrays.copyOfRange(list, start, i);
                if (name.length > USER.length && Arrays.equals(name, 0, USER.length, USER, 0, USER.length)) {
                    names.add(name);
                }
                start = i + 1;
            }
        }
        return names;
    }

    static byte[] getXattr(int fd, byte[] name) throws IOException {
        byte[] cName = ByteNames.c(name);
        try {
            long size = LibC.fgetxattr(fd, cName, null, 0);
            byte[] value = new byte[(int) size];
            long read = LibC.fgetxattr(fd, cName, value, value.length);
            return read == value.length ? value : Arrays.copyOf(value, (int) read);
        } catch (LastErrorException e) {
            throw new NativeCallException("fgetxattr", quoted(name), e);
        }
    }

    static void setXattr(int fd, byte[] name, byte[] value) throws IOException {
        try {
            LibC.fsetxattr(fd, ByteNames.c(name), value, value.length, 0);
        } catch (LastErrorException e) {
            throw new NativeCallException("fsetxattr", quoted(name), e);
        }
    }

    static void close(int fd) {
        try {
            LibC.close(fd);
        } catch (LastErrorException ignored) {
            // nothing was written through a descriptor closed here that close could still lose
        }
    }

    private static String quoted(byte[] name) {
        return "'" + ByteNames.display(name) + "'";
    }
}
