package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Property: for random trees, archive then extract gives back an identical tree. */
class DurableArchiveRoundTripTest {
    @TempDir
    Path temp;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void randomTreeSurvivesArchiveAndExtract(long seed) throws IOException {
        assertRoundTrip(seed, 60, false, ArchiveCompression.NONE);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {21, 22})
    void randomTreeSurvivesZstd(long seed) throws IOException {
        assertRoundTrip(seed, 40, false, ArchiveCompression.ZSTD);
        try (var in = Files.newInputStream(temp.resolve("durable.tar"))) {
            assertThat(in.readNBytes(4)).containsExactly(0x28, 0xB5, 0x2F, 0xFD);
        }
    }

    /** Over 1 MiB a dense file is copied as a region of a plain archive, and streamed from a compressed one. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(ArchiveCompression.class)
    void bigDenseFilesComeBackByteForByte(ArchiveCompression compression) throws IOException {
        Path source = temp.resolve("src");
        Files.createDirectories(source.resolve("d"));
        Random random = new Random(5);
        List<Path> files = new ArrayList<>();
        for (int size : new int[] {(1 << 20) + 1, (3 << 20) + 4093, 5 << 20}) {
            byte[] content = new byte[size];
            random.nextBytes(content);
            Path file = source.resolve("d/dense-" + size);
            Files.write(file, content);
            files.add(file);
        }
        TreeDescription before = TreeDescription.of(source);
        Path archive = temp.resolve("durable.tar");
        DurableArchive.create(source, archive, compression, ArchiveProgress.NONE);
        Path out = temp.resolve("out");
        DurableArchive.extract(archive, out);
        assertThat(TreeDescription.of(out).entries()).containsExactlyEntriesOf(before.entries());
        for (Path file : files) {
            assertThat(out.resolve(source.relativize(file))).hasSameBinaryContentAs(file);
        }
    }

    @Test
    void fileOverEightGibStaysSparseBothWays() throws IOException {
        assertRoundTrip(31, 10, true, ArchiveCompression.NONE);
        assertThat(Files.size(temp.resolve("durable.tar"))).isLessThan(64L << 20);
        DiskUsage extracted = DiskUsage.of(temp.resolve("out/huge-sparse.img"));
        assertThat(extracted.apparentBytes()).isEqualTo((8L << 30) + 12345);
        assertThat(extracted.allocatedBytes()).isLessThan(1L << 20);
    }

    @Test
    void progressReportsEveryEntryAndAllBytes() throws IOException {
        Path source = temp.resolve("src");
        RandomTree.create(41, source, 30, false);
        List<long[]> calls = new ArrayList<>();
        ArchiveSummary summary = DurableArchive.create(source, temp.resolve("a.tar"), ArchiveCompression.NONE,
                (bytes, entries) -> calls.add(new long[] {bytes, entries}));
        assertThat(calls).isNotEmpty();
        assertThat(calls.getLast()).containsExactly(summary.contentBytes(), summary.entries());
        for (int i = 1; i < calls.size(); i++) {
            assertThat(calls.get(i)[0]).isGreaterThanOrEqualTo(calls.get(i - 1)[0]);
            assertThat(calls.get(i)[1]).isGreaterThanOrEqualTo(calls.get(i - 1)[1]);
        }
        List<long[]> extractCalls = new ArrayList<>();
        ArchiveSummary extracted = DurableArchive.extract(temp.resolve("a.tar"), temp.resolve("out"),
                ExtractOptions.DEFAULT.withProgress((bytes, entries) -> extractCalls.add(new long[] {bytes, entries})));
        assertThat(extracted.entries()).isEqualTo(summary.entries());
        assertThat(extracted.contentBytes()).isEqualTo(summary.contentBytes());
        assertThat(extractCalls.getLast()).containsExactly(summary.contentBytes(), summary.entries());
    }

    @Test
    void replaceExistingSwapsTheWholeTree() throws IOException {
        Path source = temp.resolve("src");
        RandomTree.create(51, source, 20, false);
        DurableArchive.create(source, temp.resolve("a.tar"));
        Path target = temp.resolve("durable");
        Files.createDirectories(target.resolve("old/stuff"));
        Files.writeString(target.resolve("old/stuff/file"), "old");
        DurableArchive.extract(temp.resolve("a.tar"), target, ExtractOptions.DEFAULT.replacingExisting());
        assertThat(target.resolve("old")).doesNotExist();
        assertThat(TreeDescription.of(target)).isEqualTo(TreeDescription.of(source));
        try (var siblings = Files.list(temp)) {
            assertThat(siblings.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("src", "a.tar", "durable");
        }
    }

    @Test
    void leftoversOfAnInterruptedExtractionAreRemoved() throws IOException {
        Path sandbox = Files.createDirectories(temp.resolve("sandbox"));
        Files.createDirectories(sandbox.resolve(".durable.extract-1234abcd/half/written"));
        Files.createDirectories(sandbox.resolve("durable"));
        Files.createDirectories(sandbox.resolve(".keep-me"));
        assertThat(DurableArchive.removeInterruptedExtractions(sandbox)).isEqualTo(1);
        try (var entries = Files.list(sandbox)) {
            assertThat(entries.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("durable", ".keep-me");
        }
    }

    @Test
    void existingTargetIsRefusedWithoutReplace() throws IOException {
        Path source = temp.resolve("src");
        Files.createDirectories(source);
        DurableArchive.create(source, temp.resolve("a.tar"));
        Files.createDirectories(temp.resolve("out"));
        Assertions.assertThatThrownBy(() -> DurableArchive.extract(temp.resolve("a.tar"), temp.resolve("out")))
                .isInstanceOf(FileAlreadyExistsException.class);
    }

    private void assertRoundTrip(long seed, int entries, boolean hugeSparse, ArchiveCompression compression) throws IOException {
        Path source = temp.resolve("src");
        RandomTree.create(seed, source, entries, hugeSparse);
        TreeDescription before = TreeDescription.of(source);
        Path archive = temp.resolve("durable.tar");
        ArchiveSummary written = DurableArchive.create(source, archive, compression, ArchiveProgress.NONE);
        Path out = temp.resolve("out");
        ArchiveSummary read = DurableArchive.extract(archive, out);
        assertThat(read.entries()).isEqualTo(written.entries()).isEqualTo(before.entries().size());
        TreeDescription after = TreeDescription.of(out);
        assertThat(after.entries()).containsExactlyEntriesOf(before.entries());
        assertThat(after.hardLinkGroups()).isEqualTo(before.hardLinkGroups());
        assertThat(TreeDescription.of(source)).as("source untouched").isEqualTo(before);
    }
}
