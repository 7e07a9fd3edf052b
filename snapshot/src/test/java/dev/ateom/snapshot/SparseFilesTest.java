package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** memory-ranges operations on real sparse files: extents, hole punching, delta overlay, cloning. */
class SparseFilesTest {
    private static final int PAGE = 4096;

    @TempDir
    Path temp;

    @Test
    void diskUsageTellsAllocatedFromApparent() throws IOException {
        Path file = temp.resolve("mem");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(16L << 20);
            writePage(raf, 5, (byte) 1);
        }
        DiskUsage usage = DiskUsage.of(file);
        assertThat(usage.apparentBytes()).isEqualTo(16L << 20);
        assertThat(usage.allocatedBytes()).isEqualTo(PAGE);
        assertThat(usage.sparse()).isTrue();
    }

    @Test
    void punchingZeroPagesOfADenseFileKeepsContentAndFreesTheZeros() throws IOException {
        // what CHV v54 writes after an OnDemand restore: every page written, most of them zero
        Path file = temp.resolve("memory-ranges");
        int pages = 1024;
        byte[] content = new byte[pages * PAGE];
        for (int page : new int[] {0, 1, 7, 500, 1023}) {
            Arrays.fill(content, page * PAGE + 100, page * PAGE + 200, (byte) (page % 250 + 1));
        }
        Files.write(file, content);
        assertThat(DiskUsage.of(file).sparse()).isFalse();

        MemoryRangesCompactor.Result result = MemoryRangesCompactor.punchZeroPages(file);

        assertThat(Files.readAllBytes(file)).isEqualTo(content);
        assertThat(result.after().apparentBytes()).isEqualTo((long) pages * PAGE);
        assertThat(result.after().allocatedBytes()).isEqualTo(5L * PAGE);
        assertThat(result.punchedBytes()).isEqualTo((pages - 5L) * PAGE);
        try (NativeFile nativeFile = NativeFile.openReadOnly(file)) {
            assertThat(nativeFile.dataExtents()).containsExactly(new Extent(0, 2 * PAGE), new Extent(7 * PAGE, PAGE),
                    new Extent(500 * PAGE, PAGE), new Extent(1023 * PAGE, PAGE));
        }
    }

    @Test
    void punchingAnAlreadySparseFileChangesNothing() throws IOException {
        Path file = temp.resolve("memory-ranges");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(64L << 20);
            writePage(raf, 3, (byte) 9);
        }
        MemoryRangesCompactor.Result result = MemoryRangesCompactor.punchZeroPages(file);
        assertThat(result.punchedBytes()).isZero();
        assertThat(result.after()).isEqualTo(result.before());
    }

    @Test
    void oddSizedTailOfZerosIsPunchedToo() throws IOException {
        Path file = temp.resolve("odd");
        byte[] content = new byte[3 * PAGE + 123];
        content[10] = 1;
        Files.write(file, content);
        MemoryRangesCompactor.punchZeroPages(file);
        assertThat(Files.readAllBytes(file)).isEqualTo(content);
        // the partial last block can only be zeroed, not freed: it stays allocated
        assertThat(DiskUsage.of(file).allocatedBytes()).isEqualTo(PAGE + 123);
    }

    @Test
    void overlayTakesDeltaDataIncludingZerosAndFillsHolesFromBase() throws IOException {
        // base: pages 0..3 = 'B', page 9 = 'B', rest holes. delta (older CHV after OnDemand): page 1 = 'D',
        // page 2 explicitly zero (the guest zeroed it), page 20 = 'D'; holes elsewhere mean "unchanged"
        Path base = temp.resolve("base");
        Path delta = temp.resolve("delta");
        long size = 32L * PAGE;
        try (RandomAccessFile b = new RandomAccessFile(base.toFile(), "rw"); RandomAccessFile d = new RandomAccessFile(delta.toFile(), "rw")) {
            b.setLength(size);
            d.setLength(size);
            for (int page : new int[] {0, 1, 2, 3, 9}) {
                writePage(b, page, (byte) 'B');
            }
            writePage(d, 1, (byte) 'D');
            writePage(d, 2, (byte) 0);
            writePage(d, 20, (byte) 'D');
        }
        Path out = temp.resolve("out");
        DiskUsage usage = MemoryRangesOverlay.overlay(delta, base, out);

        byte[] result = Files.readAllBytes(out);
        assertThat(pageValue(result, 0)).isEqualTo((byte) 'B');
        assertThat(pageValue(result, 1)).isEqualTo((byte) 'D');
        assertThat(pageValue(result, 2)).isEqualTo((byte) 0);
        assertThat(pageValue(result, 3)).isEqualTo((byte) 'B');
        assertThat(pageValue(result, 9)).isEqualTo((byte) 'B');
        assertThat(pageValue(result, 20)).isEqualTo((byte) 'D');
        assertThat(pageValue(result, 30)).isEqualTo((byte) 0);
        assertThat(usage.apparentBytes()).isEqualTo(size);
        assertThat(usage.allocatedBytes()).as("base holes stay holes").isEqualTo(6L * PAGE);
        assertThat(pageValue(Files.readAllBytes(delta), 0)).as("delta untouched").isEqualTo((byte) 0);
        assertThat(DiskUsage.of(delta).allocatedBytes()).isEqualTo(3L * PAGE);

        MemoryRangesCompactor.punchZeroPages(out);
        assertThat(Files.readAllBytes(out)).isEqualTo(result);
        assertThat(DiskUsage.of(out).allocatedBytes()).isEqualTo(5L * PAGE);
    }

    @Test
    void fillHolesInPlaceCompletesTheDelta() throws IOException {
        Path base = temp.resolve("base");
        Path delta = temp.resolve("delta");
        try (RandomAccessFile b = new RandomAccessFile(base.toFile(), "rw"); RandomAccessFile d = new RandomAccessFile(delta.toFile(), "rw")) {
            b.setLength(8L * PAGE);
            d.setLength(8L * PAGE);
            writePage(b, 0, (byte) 'B');
            writePage(b, 7, (byte) 'B');
            writePage(d, 7, (byte) 'D');
        }
        MemoryRangesOverlay.fillHolesFrom(base, delta);
        byte[] result = Files.readAllBytes(delta);
        assertThat(pageValue(result, 0)).isEqualTo((byte) 'B');
        assertThat(pageValue(result, 7)).isEqualTo((byte) 'D');
    }

    @Test
    void overlayRefusesADeltaOfAnotherSize() throws IOException {
        Path base = temp.resolve("base");
        Path delta = temp.resolve("delta");
        Files.write(base, new byte[PAGE]);
        Files.write(delta, new byte[2 * PAGE]);
        assertThatThrownBy(() -> MemoryRangesOverlay.overlay(delta, base, temp.resolve("out")))
                .hasMessageContaining("not a delta of that base");
        assertThat(temp.resolve("out")).doesNotExist();
    }

    @Test
    void cloneOnTheSameFilesystemIsAHardLink() throws IOException {
        Path source = temp.resolve("source");
        try (RandomAccessFile raf = new RandomAccessFile(source.toFile(), "rw")) {
            raf.setLength(1L << 30);
            writePage(raf, 1, (byte) 3);
        }
        Path target = temp.resolve("target");
        assertThat(FileCloner.cloneOrCopy(source, target)).isEqualTo(FileCloner.Method.HARD_LINK);
        assertThat(Files.isSameFile(source, target)).isTrue();
    }

    @Test
    void sparseCopyKeepsHolesAndContent() throws IOException {
        Path source = temp.resolve("source");
        try (RandomAccessFile raf = new RandomAccessFile(source.toFile(), "rw")) {
            raf.setLength(10L << 20);
            writePage(raf, 2, (byte) 3);
            writePage(raf, 2000, (byte) 4);
        }
        Path target = temp.resolve("copy");
        SparseCopy.copy(source, target);
        assertThat(DiskUsage.of(target)).isEqualTo(DiskUsage.of(source));
        assertThat(Files.mismatch(source, target)).isEqualTo(-1);
    }

    @Test
    void completenessFollowsTheMeasuredVersions() {
        assertThat(MemoryRangesCompleteness.of("54.0.0", true)).isEqualTo(MemoryRangesCompleteness.COMPLETE);
        assertThat(MemoryRangesCompleteness.of("v55.1.0", true)).isEqualTo(MemoryRangesCompleteness.COMPLETE);
        assertThat(MemoryRangesCompleteness.of("v40.0", true)).isEqualTo(MemoryRangesCompleteness.SPARSE_DELTA);
        assertThat(MemoryRangesCompleteness.of("v40.0", false)).isEqualTo(MemoryRangesCompleteness.COMPLETE);
        assertThatThrownBy(() -> MemoryRangesCompleteness.of("main-branch", true)).hasMessageContaining("main-branch");
    }

    @Test
    void extentHelpersComplementAndIntersect() {
        List<Extent> data = List.of(new Extent(10, 10), new Extent(30, 5));
        assertThat(MemoryRangesOverlay.complement(data, 50)).containsExactly(new Extent(0, 10), new Extent(20, 10), new Extent(35, 15));
        assertThat(MemoryRangesOverlay.intersect(List.of(new Extent(0, 25)), data)).containsExactly(new Extent(10, 10));
    }

    private static void writePage(RandomAccessFile file, int page, byte value) throws IOException {
        byte[] bytes = new byte[PAGE];
        Arrays.fill(bytes, value);
        file.seek((long) page * PAGE);
        file.write(bytes);
    }

    private static byte pageValue(byte[] content, int page) {
        byte first = content[page * PAGE];
        for (int i = 1; i < PAGE; i++) {
            assertThat(content[page * PAGE + i]).as("page %d uniform", page).isEqualTo(first);
        }
        return first;
    }
}
