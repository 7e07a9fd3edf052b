package dev.ateom.snapshot;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorInputStream;

/** Opens durable.tar for reading, plain or zstd (detected by its magic number). */
final class ArchiveReader {
    private static final byte[] ZSTD_MAGIC = {(byte) 0x28, (byte) 0xB5, (byte) 0x2F, (byte) 0xFD};

    private ArchiveReader() {
    }

    static TarArchiveInputStream open(Path archive) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(archive), 1 << 20);
        try {
            in.mark(4);
            byte[] head = in.readNBytes(4);
            in.reset();
            if (Arrays.equals(head, ZSTD_MAGIC)) {
                in = new ZstdCompressorInputStream(in);
            }
            return new TarArchiveInputStream(in, "UTF-8");
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }
}
