package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FastCdcTest {
    private static final int MIB = 1 << 20;

    @TempDir
    Path work;

    @Test
    void chunksTileTheFileWithinTheSizeBoundsAndAverageOneToFourMib() throws IOException {
        List<PlainChunk> chunks = chunk(GuestSnapshot.random(48 * MIB + 12345, 1));
        long position = 0;
        for (int i = 0; i < chunks.size(); i++) {
            PlainChunk chunk = chunks.get(i);
            assertThat(chunk.offset()).isEqualTo(position);
            assertThat(chunk.length()).isLessThanOrEqualTo(FastCdc.MAX_SIZE);
            if (i < chunks.size() - 1) {
                assertThat(chunk.length()).isGreaterThan(FastCdc.MIN_SIZE);
            }
            position += chunk.length();
        }
        assertThat(position).isEqualTo(48 * MIB + 12345);
        double average = (double) position / chunks.size();
        System.out.printf("fastcdc: %d chunks, average %.2f MiB%n", chunks.size(), average / MIB);
        assertThat(average).isBetween(1.0 * MIB, 4.0 * MIB);
    }

    @Test
    void anInsertNearTheStartMovesOnlyTheBoundariesOfTheChunkItLandsIn() throws IOException {
        byte[] original = GuestSnapshot.random(24 * MIB, 2);
        byte[] inserted = new byte[original.length + 100];
        System.arraycopy(original, 0, inserted, 0, 1000);
        System.arraycopy(GuestSnapshot.random(100, 3), 0, inserted, 1000, 100);
        System.arraycopy(original, 1000, inserted, 1100, original.length - 1000);

        Set<Long> before = boundaries(chunk(original), 0);
        Set<Long> after = boundaries(chunk(inserted), -100); // in the original's coordinates
        Set<Long> moved = new HashSet<>(before);
        moved.removeAll(after);
        assertThat(before).hasSizeGreaterThan(10);
        assertThat(moved).hasSizeLessThanOrEqualTo(2);

        Set<ChunkHash> originalChunks = hashes(chunk(original));
        long shared = hashes(chunk(inserted)).stream().filter(originalChunks::contains).count();
        assertThat(shared).isGreaterThanOrEqualTo(originalChunks.size() - 2);
    }

    @Test
    void cutsAreDeterministicAndSmallFilesAreOneChunk() throws IOException {
        byte[] data = GuestSnapshot.random(9 * MIB, 4);
        assertThat(boundaries(chunk(data), 0)).isEqualTo(boundaries(chunk(data), 0));
        assertThat(chunk(GuestSnapshot.random(1000, 5))).hasSize(1);
        assertThat(chunk(new byte[0])).isEmpty();
    }

    private List<PlainChunk> chunk(byte[] data) throws IOException {
        Path file = Files.write(Files.createTempFile(work, "cdc", ".bin"), data);
        List<PlainChunk> chunks = new ArrayList<>();
        ArchiveChunker.chunk(file, new ChunkSink() {
            @Override
            public void data(PlainChunk chunk) {
                chunks.add(chunk);
            }

            @Override
            public void hole(long offset, long length) {
                throw new AssertionError("archives have no holes");
            }
        });
        return chunks;
    }

    private static Set<Long> boundaries(List<PlainChunk> chunks, long shift) {
        Set<Long> ends = new HashSet<>();
        chunks.forEach(c -> ends.add(c.offset() + c.length() + shift));
        return ends;
    }

    private static Set<ChunkHash> hashes(List<PlainChunk> chunks) {
        Set<ChunkHash> hashes = new HashSet<>();
        chunks.forEach(c -> hashes.add(ChunkHash.of(c.data(), 0, c.length())));
        return hashes;
    }
}
