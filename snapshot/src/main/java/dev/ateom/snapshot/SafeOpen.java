package dev.ateom.snapshot;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Opens a snapshot file for reading only if it is a regular file, without following a symlink at
 * its name and without blocking (a fifo planted as {@code durable.tar} fails at once instead of
 * hanging the reader). The check and the read are on the same open file: the channel reopens the
 * descriptor through {@code /proc/self/fd}, which names that file and nothing else.
 */
public final class SafeOpen {
    private SafeOpen() {
    }

    /** @throws NotRegularFileException when the name is a symlink, fifo, device, directory or socket */
    public static FileChannel regularFile(Path path) throws IOException {
        int fd = regularFileDescriptor(path);
        try {
            return FileChannel.open(Path.of("/proc/self/fd/" + fd), StandardOpenOption.READ);
        } finally {
            At.close(fd);
        }
    }

    /** The same check, answering the checked descriptor itself (the caller closes it). */
    static int regularFileDescriptor(Path path) throws IOException {
        int fd;
        try {
            fd = LibC.open(path.toString(), LibC.O_RDONLY | LibC.O_NOFOLLOW | LibC.O_NONBLOCK | LibC.O_CLOEXEC, 0);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == LibC.ELOOP) {
                throw new NotRegularFileException(path, "symlink");
            }
            throw new NativeCallException("open", path.toString(), e);
        }
        try {
            FileStatus status = At.stat(fd);
            if (!status.isRegularFile()) {
                throw new NotRegularFileException(path, FileType.describe(status.mode()));
            }
            return fd;
        } catch (IOException | RuntimeException e) {
            At.close(fd);
            throw e;
        }
    }

    /** The snapshot file is there but is not a regular file. */
    public static final class NotRegularFileException extends IOException {
        NotRegularFileException(Path path, String what) {
            super(path + " is a " + what + ", not a regular file");
        }
    }
}
