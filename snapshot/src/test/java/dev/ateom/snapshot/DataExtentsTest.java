package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataExtentsTest {
    @TempDir
    Path dir;

    @Test
    void aSparseFileHasItsWrittenRangesAsExtentsAndNothingElse() throws IOException {
        Path file = dir.resolve("sparse");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(64L << 20);
            raf.seek(8L << 20);
            raf.write(new byte[] {1, 2, 3});
        }
        assertThat(DataExtents.of(file)).singleElement().satisfies(extent -> {
            assertThat(extent.offset()).isLessThanOrEqualTo(8L << 20);
            assertThat(extent.end()).isGreaterThanOrEqualTo((8L << 20) + 3).isLessThanOrEqualTo(9L << 20);
        });
        Path empty = dir.resolve("empty");
        try (RandomAccessFile raf = new RandomAccessFile(empty.toFile(), "rw")) {
            raf.setLength(1 << 20);
        }
        assertThat(DataExtents.of(empty)).isEmpty();
    }
}
