package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The memory digest sees content, not layout: holes equal written zeros, and any changed or moved page shows. */
class MemoryPageDigestTest {
    private static final int PAGE = 4096;
    @TempDir
    Path dir;

    @Test
    void holesAndWrittenZerosDigestTheSame() throws IOException {
        Path sparse = file("sparse", 1 << 20, new int[] {3, 100}, false);
        Path dense = file("dense", 1 << 20, new int[] {3, 100}, true);
        assertThat(DiskUsage.of(sparse).allocatedBytes()).isLessThan(DiskUsage.of(dense).allocatedBytes());
        assertThat(MemoryPageDigest.of(sparse)).isEqualTo(MemoryPageDigest.of(dense));
        MemoryRangesCompactor.punchZeroPages(dense);
        assertThat(MemoryPageDigest.of(dense)).isEqualTo(MemoryPageDigest.of(sparse));
    }

    @Test
    void thePunchingPassDigestsWhatTheDigestOfTheFileSays() throws IOException {
        // zero runs inside a chunk, across the 1 MiB chunk boundary (pages 255-257) and at the end; a short last page
        int size = (3 << 20) + 1000;
        Path dense = file("dense-mixed", size, new int[] {0, 1, 5, 254, 258, 300, 600, 767}, true);
        try (RandomAccessFile raf = new RandomAccessFile(dense.toFile(), "rw")) {
            raf.seek(size - 10);
            raf.write('x');
        }
        String expected = MemoryPageDigest.of(dense);
        MemoryRangesCompactor.Result result = MemoryRangesCompactor.punchZeroPages(dense);
        assertThat(result.digest()).isEqualTo(expected).isEqualTo(MemoryPageDigest.of(dense));
        assertThat(result.punchedBytes()).isPositive();
        assertThat(MemoryRangesCompactor.punchZeroPages(file("sparse-mixed", size, new int[] {2, 256, 700}, false)).digest())
                .isEqualTo(MemoryPageDigest.of(file("dense-again", size, new int[] {2, 256, 700}, true)));
    }

    @Test
    void aChangedOrMovedPageChangesTheDigest() throws IOException {
        String original = MemoryPageDigest.of(file("a", 1 << 20, new int[] {3, 100}, false));
        assertThat(MemoryPageDigest.of(file("moved", 1 << 20, new int[] {4, 100}, false))).isNotEqualTo(original);
        Path changed = file("changed", 1 << 20, new int[] {3, 100}, false);
        try (RandomAccessFile raf = new RandomAccessFile(changed.toFile(), "rw")) {
            raf.seek(100L * PAGE + 17);
            raf.write('!');
        }
        assertThat(MemoryPageDigest.of(changed)).isNotEqualTo(original);
        assertThat(MemoryPageDigest.of(file("empty", 1 << 20, new int[0], false))).isNotEqualTo(original);
    }

    @Test
    void verifyUsesTheMemoryDigestAndCatchesTampering() throws IOException {
        SnapshotStore store = SnapshotStore.open(dir);
        Snapshot snapshot = SnapshotFixture.commit(store, dir, "snap-m");
        Manifest.FileEntry memory = snapshot.manifest().file(SnapshotLayout.MEMORY_RANGES).orElseThrow();
        assertThat(memory.digest()).isEqualTo(MemoryPageDigest.ALGORITHM);
        assertThat(SnapshotInspector.verify(snapshot).problems()).isEmpty();

        Path memoryRanges = snapshot.layout().memoryRanges();
        memoryRanges.toFile().setWritable(true);
        byte[] content = Files.readAllBytes(memoryRanges);
        int firstData = 0;
        while (content[firstData] == 0) firstData++;
        try (RandomAccessFile raf = new RandomAccessFile(memoryRanges.toFile(), "rw")) {
            raf.seek(firstData);
            raf.write(content[firstData] ^ 0x5a);
        }
        assertThat(SnapshotInspector.verify(snapshot).problems())
                .anySatisfy(p -> assertThat(p).contains("chv/memory-ranges").contains(MemoryPageDigest.ALGORITHM));
    }

    private Path file(String name, int size, int[] pages, boolean writeZerosEverywhere) throws IOException {
        Path file = dir.resolve(name);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(size);
            if (writeZerosEverywhere) raf.write(new byte[size]);
            byte[] page = new byte[PAGE];
            for (int p : pages) {
                Arrays.fill(page, (byte) (p + 1));
                raf.seek((long) p * PAGE);
                raf.write(page);
            }
        }
        return file;
    }
}
