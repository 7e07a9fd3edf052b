package dev.ateom.snapshot;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorInputStream;

/**
 * Opens durable.tar for reading (a regular file only, see {@link SafeOpen}), plain or zstd (detected by its
 * magic number). A plain archive is read through {@link ArchiveFileInput}, so entries' data can be copied
 * as regions of the file; a compressed one only as a stream.
 */
final class ArchiveReader {
    private static final byte[] ZSTD_MAGIC = {(byte) 0x28, (byte) 0xB5, (byte) 0x2F, (byte) 0xFD};

    private ArchiveReader() {
    }

    static TarInput open(Path archive) throws IOException {
        ArchiveFileInput file = new ArchiveFileInput(SafeOpen.regularFileDescriptor(archive), archive.toString());
        try {
            file.mark(ZSTD_MAGIC.length);
            byte[] head = file.readNBytes(ZSTD_MAGIC.length);
            file.reset();
            if (Arrays.equals(head, ZSTD_MAGIC)) {
                return new TarInput(new BufferedInputStream(new ZstdCompressorInputStream(file), 1 << 20));
            }
            return new TarInput(file);
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }
}
