package dev.ateom.snapshot;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorInputStream;

/** Opens durable.tar for reading (a regular file only, see {@link SafeOpen}), plain or zstd (detected by its magic number). */
final class ArchiveReader {
    private static final byte[] ZSTD_MAGIC = {(byte) 0x28, (byte) 0xB5, (byte) 0x2F, (byte) 0xFD};

    private ArchiveReader() {
    }

    static TarInput open(Path archive) throws IOException {
        InputStream in = new BufferedInputStream(Channels.newInputStream(SafeOpen.regularFile(archive)), 1 << 20);
        try {
            in.mark(4);
            byte[] head = in.readNBytes(4);
            in.reset();
            if (Arrays.equals(head, ZSTD_MAGIC)) {
                in = new BufferedInputStream(new ZstdCompressorInputStream(in), 1 << 20);
            }
            return new TarInput(in);
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }
}
