package dev.ateom.snapshot;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A raw file descriptor for the calls that need one (extents, hole punching, cloning, syncfs). */
final class NativeFile implements AutoCloseable {
    private static final int COPY_BUFFER = 1 << 20;
    private final String path;
    private final int fd;

    private NativeFile(Path path, int fd) {
        this(path.toString(), fd);
    }

    private NativeFile(String what, int fd) {
        this.path = what;
        this.fd = fd;
    }

    /** Takes ownership of an open descriptor; {@code what} names it in errors. */
    static NativeFile adopt(int fd, String what) {
        return new NativeFile(what, fd);
    }

    static NativeFile openReadOnly(Path path) throws IOException {
        return open(path, LibC.O_RDONLY);
    }

    static NativeFile openReadWrite(Path path) throws IOException {
        return open(path, LibC.O_RDWR);
    }

    static NativeFile openDirectory(Path path) throws IOException {
        return open(path, LibC.O_RDONLY | LibC.O_DIRECTORY);
    }

    /** Creates a new file (fails if the name exists, never follows a symlink) for writing. */
    static NativeFile createNew(Path path) throws IOException {
        try {
            int flags = LibC.O_WRONLY | LibC.O_CREAT | LibC.O_EXCL | LibC.O_CLOEXEC | LibC.O_NOFOLLOW;
            return new NativeFile(path, LibC.open(path.toString(), flags, 0600));
        } catch (LastErrorException e) {
            throw failure("create", path, e);
        }
    }

    void writeFully(byte[] buffer, int length, long offset) throws IOException {
        int done = 0;
        while (done < length) {
            byte[] chunk = done == 0 ? buffer : Arrays.copyOfRange(buffer, done, length);
            try {
                done += (int) LibC.pwrite(fd, chunk, length - done, offset + done);
            } catch (LastErrorException e) {
                throw failure("pwrite at " + (offset + done) + " to", path, e);
            }
        }
    }

    /**
     * Copies {@code region} to {@code offset} of this file inside the kernel ({@code copy_file_range}): no bytes
     * pass through the Java heap. Where the kernel cannot (across some filesystems, old kernels) the copy is
     * {@code pread}/{@code pwrite} through one native buffer. A source that ends early fails.
     */
    void copyFrom(FileRegion region, long offset) throws IOException {
        long done = 0;
        while (done < region.length()) {
            long copied;
            try {
                copied = LibC.copy_file_range(region.fd(), new long[] {region.offset() + done}, fd, new long[] {offset + done},
                        region.length() - done, 0);
            } catch (LastErrorException e) {
                if (e.getErrorCode() == LibC.EINTR) {
                    continue;
                }
                if (done == 0 && kernelCannotCopy(e.getErrorCode())) {
                    copyThroughBuffer(region, offset);
                    return;
                }
                throw failure("copy_file_range at " + (offset + done) + " to", path, e);
            }
            if (copied == 0) {
                throw sourceEnded(region, done);
            }
            done += copied;
        }
    }

    private static boolean kernelCannotCopy(int errno) {
        return errno == LibC.EXDEV || errno == LibC.EINVAL || errno == LibC.ENOSYS || errno == LibC.ENOTSUP;
    }

    /** The copy without copy_file_range (package-private for its test). */
    void copyThroughBuffer(FileRegion region, long offset) throws IOException {
        try (Memory buffer = new Memory((int) Math.min(COPY_BUFFER, Math.max(1, region.length())))) {
            long done = 0;
            while (done < region.length()) {
                long read;
                try {
                    read = LibC.pread(region.fd(), buffer, Math.min(buffer.size(), region.length() - done), region.offset() + done);
                } catch (LastErrorException e) {
                    if (e.getErrorCode() == LibC.EINTR) {
                        continue;
                    }
                    throw failure("pread for a copy to", path, e);
                }
                if (read == 0) {
                    throw sourceEnded(region, done);
                }
                writeFully(buffer, read, offset + done);
                done += read;
            }
        }
    }

    /** Writes {@code length} bytes of native memory at {@code offset}, retrying short and interrupted writes. */
    private void writeFully(Memory buffer, long length, long offset) throws IOException {
        long written = 0;
        while (written < length) {
            try {
                written += LibC.pwrite(fd, buffer.share(written), length - written, offset + written);
            } catch (LastErrorException e) {
                if (e.getErrorCode() != LibC.EINTR) {
                    throw failure("pwrite at " + (offset + written) + " to", path, e);
                }
            }
        }
    }

    private EOFException sourceEnded(FileRegion region, long done) {
        return new EOFException("the source ended " + done + " bytes into a region of " + region.length() + " copied to " + path);
    }

    void truncate(long length) throws IOException {
        try {
            LibC.ftruncate(fd, length);
        } catch (LastErrorException e) {
            throw failure("ftruncate to " + length + " of", path, e);
        }
    }

    /** Owner, then mode (chown clears setuid/setgid), then mtime; atime is left alone. */
    void setOwnerModeAndMtime(long uid, long gid, int mode, FileTime mtime) throws IOException {
        try {
            LibC.fchown(fd, (int) uid, (int) gid);
            LibC.fchmod(fd, mode);
            Instant instant = mtime.toInstant();
            LibC.futimens(fd, new long[] {0, LibC.UTIME_OMIT, instant.getEpochSecond(), instant.getNano()});
        } catch (LastErrorException e) {
            throw failure("setting owner, mode or mtime of", path, e);
        }
    }

    /**
     * Never follows a symlink at the name and never blocks on a fifo; anything but a regular file (or
     * a directory when asked for one) is refused, so a device or fifo planted in a snapshot is never read.
     */
    private static NativeFile open(Path path, int flags) throws IOException {
        int fd;
        try {
            fd = LibC.open(path.toString(), flags | LibC.O_CLOEXEC | LibC.O_NOFOLLOW | LibC.O_NONBLOCK, 0);
        } catch (LastErrorException e) {
            throw failure("open", path, e);
        }
        NativeFile file = new NativeFile(path, fd);
        FileStatus status;
        try {
            status = At.stat(fd);
        } catch (IOException e) {
            file.close();
            throw e;
        }
        boolean wanted = (flags & LibC.O_DIRECTORY) != 0 ? status.isDirectory() : status.isRegularFile();
        if (!wanted) {
            file.close();
            throw new IOException(path + " is a " + FileType.describe(status.mode()) + ", not a "
                    + ((flags & LibC.O_DIRECTORY) != 0 ? "directory" : "regular file"));
        }
        return file;
    }

    long size() throws IOException {
        return At.stat(fd).size();
    }

    /** Data extents in file order, found with SEEK_DATA/SEEK_HOLE; holes are everything else. */
    List<Extent> dataExtents() throws IOException {
        return dataExtents(fd, path);
    }

    static List<Extent> dataExtents(int fd, byte[] name) throws IOException {
        return dataExtents(fd, ByteNames.display(name));
    }

    private static List<Extent> dataExtents(int fd, String what) throws IOException {
        List<Extent> extents = new ArrayList<>();
        long position = 0;
        while (true) {
            long dataStart;
            try {
                dataStart = LibC.lseek(fd, position, LibC.SEEK_DATA);
            } catch (LastErrorException e) {
                if (e.getErrorCode() == LibC.ENXIO) {
                    return extents; // no data at or after position
                }
                throw new NativeCallException("lseek(SEEK_DATA)", what, e);
            }
            long holeStart;
            try {
                holeStart = LibC.lseek(fd, dataStart, LibC.SEEK_HOLE);
            } catch (LastErrorException e) {
                throw new NativeCallException("lseek(SEEK_HOLE)", what, e);
            }
            extents.add(new Extent(dataStart, holeStart - dataStart));
            position = holeStart;
        }
    }

    void punchHole(long offset, long length) throws IOException {
        try {
            LibC.fallocate(fd, LibC.FALLOC_FL_PUNCH_HOLE | LibC.FALLOC_FL_KEEP_SIZE, offset, length);
        } catch (LastErrorException e) {
            throw failure("fallocate(PUNCH_HOLE) at " + offset + "+" + length + " of", path, e);
        }
    }

    /** Makes this file share source's extents; false when the filesystem cannot (ext4, tmpfs, across filesystems). */
    boolean tryCloneFrom(NativeFile source) {
        try {
            LibC.ioctl(fd, LibC.FICLONE, source.fd);
            return true;
        } catch (LastErrorException e) {
            return false;
        }
    }

    void syncFilesystem() throws IOException {
        try {
            LibC.syncfs(fd);
        } catch (LastErrorException e) {
            throw failure("syncfs", path, e);
        }
    }

    @Override
    public void close() {
        try {
            LibC.close(fd);
        } catch (LastErrorException ignored) {
            // close errors on a descriptor we only read or punched carry no data loss
        }
    }

    static IOException failure(String call, Path path, LastErrorException e) {
        return failure(call, path.toString(), e);
    }

    static IOException failure(String call, String what, LastErrorException e) {
        return new NativeCallException(call, what, e);
    }
}
