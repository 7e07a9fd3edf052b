package dev.ateom.microvm.vm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The snapshot after an OnDemand restore is made complete for delta-writing CHV versions, and left alone otherwise. */
class OnDemandSnapshotCompletionTest {
    private static final int PAGE = 4096;
    private static final int PAGES = 64;
    @TempDir Path dir;

    @Test
    void deltaFromAnOlderVersionGetsItsHolesFilledFromTheSource() throws IOException {
        Path base = sparse("base", new int[] {1, 2, 10, 40}, (byte) 'b');
        Path delta = sparse("delta", new int[] {2, 11}, (byte) 'd');
        zeroPage(delta, 12); // a page the guest zeroed since the restore: authoritative, must stay zero

        assertThat(OnDemandSnapshotCompletion.complete(delta, Optional.of(base), "40.0.0")).isTrue();

        byte[] content = Files.readAllBytes(delta);
        assertThat(page(content, 1)).containsOnly('b');
        assertThat(page(content, 2)).containsOnly('d');
        assertThat(page(content, 10)).containsOnly('b');
        assertThat(page(content, 11)).containsOnly('d');
        assertThat(page(content, 12)).containsOnly(0);
        assertThat(page(content, 40)).containsOnly('b');
        assertThat(page(content, 3)).containsOnly(0);
        assertThat(Files.size(delta)).isEqualTo((long) PAGES * PAGE);
    }

    @Test
    void completeSnapshotOfVersion54IsLeftAsWritten() throws IOException {
        Path base = sparse("base", new int[] {1, 2}, (byte) 'b');
        Path full = sparse("full", new int[] {2}, (byte) 'n'); // page 1 was zeroed by the guest: a hole now
        byte[] before = Files.readAllBytes(full);
        assertThat(OnDemandSnapshotCompletion.complete(full, Optional.of(base), "54.0.0")).isFalse();
        assertThat(Files.readAllBytes(full)).isEqualTo(before);
        assertThat(OnDemandSnapshotCompletion.complete(full, Optional.of(base), "v55.1.0")).isFalse();
    }

    @Test
    void vmNotRestoredOnDemandIsLeftAlone() throws IOException {
        Path snapshot = sparse("copy", new int[] {5}, (byte) 'c');
        byte[] before = Files.readAllBytes(snapshot);
        assertThat(OnDemandSnapshotCompletion.complete(snapshot, Optional.empty(), "30.0")).isFalse();
        assertThat(Files.readAllBytes(snapshot)).isEqualTo(before);
    }

    @Test
    void unknownVersionsAreTreatedAsDeltas() {
        assertThat(OnDemandSnapshotCompletion.writesDelta("dev-build")).isTrue();
        assertThat(OnDemandSnapshotCompletion.writesDelta(null)).isTrue();
        assertThat(OnDemandSnapshotCompletion.writesDelta("53.9.9")).isTrue();
        assertThat(OnDemandSnapshotCompletion.writesDelta("54.0.0")).isFalse();
    }

    private Path sparse(String name, int[] dataPages, byte fill) throws IOException {
        Path file = dir.resolve(name);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength((long) PAGES * PAGE);
            byte[] page = new byte[PAGE];
            Arrays.fill(page, fill);
            for (int p : dataPages) {
                raf.seek((long) p * PAGE);
                raf.write(page);
            }
        }
        return file;
    }

    private static void zeroPage(Path file, int pageIndex) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek((long) pageIndex * PAGE);
            raf.write(new byte[PAGE]);
        }
    }

    private static byte[] page(byte[] content, int index) {
        return Arrays.copyOfRange(content, index * PAGE, (index + 1) * PAGE);
    }
}
