package dev.ateom.microvm.systeminfo.volume;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Opens a {@link FileContent} as a stream; host files never through a symlink and never past their limit. */
final class FileContentStreams {
    private FileContentStreams() {}

    static InputStream open(FileContent content) throws IOException {
        return switch (content) {
            case FileContent.Bytes bytes -> new ByteArrayInputStream(bytes.data());
            case FileContent.HostFile host -> new Capped(
                    Files.newInputStream(host.path(), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS),
                    host.path(), host.maxBytes());
        };
    }

    /** Fails instead of reading a file that grew past its limit after it was listed (bounded memory and disk). */
    private static final class Capped extends FilterInputStream {
        private final Path path;
        private final long maxBytes;
        private long read;

        Capped(InputStream in, Path path, long maxBytes) {
            super(in);
            this.path = path;
            this.maxBytes = maxBytes;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            count(b < 0 ? 0 : 1);
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            count(Math.max(n, 0));
            return n;
        }

        private void count(int n) throws IOException {
            read += n;
            if (read > maxBytes) {
                throw new IOException(path + " grew past the limit of " + maxBytes + " bytes while it was copied");
            }
        }
    }
}
