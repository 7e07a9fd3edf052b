package dev.ateom.snapshot;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * A plain (uncompressed) archive file read as a stream that knows where in the file it is, so that an
 * entry's data can be handed on as a {@link FileRegion} and skipped instead of read: the extraction's
 * writer threads then copy it file to file inside the kernel, and the reading thread, which also creates
 * every file, does not copy any file's bytes. Reads are {@code pread}s of up to 1 MiB into a native buffer;
 * a skip or a region beyond the buffer moves on without reading.
 * <p>
 * Not thread-safe; regions it hands out stay readable until {@link #close()}, which closes the descriptor.
 */
final class ArchiveFileInput extends InputStream {
    private static final int BUFFER = 1 << 20;

    private final int fd;
    private final String what;
    private final long size;
    private final Memory buffer = new Memory(BUFFER);
    /** File offset of the buffer's first byte, and how many bytes of it are valid. */
    private long bufferStart;
    private int buffered;
    /** File offset of the next byte this stream answers. */
    private long position;
    private long mark;

    /** Takes over {@code fd}, a regular file's descriptor open for reading. */
    ArchiveFileInput(int fd, String what) throws IOException {
        this.fd = fd;
        this.what = what;
        try {
            this.size = At.stat(fd).size();
        } catch (IOException | RuntimeException e) {
            At.close(fd);
            throw e;
        }
    }

    /** The next {@code length} bytes as a region of the file, skipped here; fails if the file ends before them. */
    FileRegion region(long length) throws IOException {
        if (length > size - position) {
            throw new EOFException(what + " ends inside an entry's data (" + length + " bytes at offset " + position
                    + ", file size " + size + ")");
        }
        FileRegion region = new FileRegion(fd, position, length);
        position += length;
        return region;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] target, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        if (position < bufferStart || position >= bufferStart + buffered) {
            if (!fill()) {
                return -1;
            }
        }
        int from = (int) (position - bufferStart);
        int n = Math.min(length, buffered - from);
        buffer.read(from, target, offset, n);
        position += n;
        return n;
    }

    /** Moves on without reading; never past the end of the file (a short skip then tells the caller). */
    @Override
    public long skip(long n) {
        long skipped = Math.max(0, Math.min(n, size - position));
        position += skipped;
        return skipped;
    }

    @Override
    public boolean markSupported() {
        return true;
    }

    @Override
    public void mark(int readLimit) {
        mark = position;
    }

    @Override
    public void reset() {
        position = mark;
    }

    @Override
    public void close() {
        At.close(fd);
    }

    private boolean fill() throws IOException {
        bufferStart = position;
        buffered = 0;
        while (true) {
            try {
                long n = LibC.pread(fd, buffer, BUFFER, position);
                buffered = (int) n;
                return n > 0;
            } catch (LastErrorException e) {
                if (e.getErrorCode() != LibC.EINTR) {
                    throw NativeFile.failure("pread at " + position + " of", what, e);
                }
            }
        }
    }
}
