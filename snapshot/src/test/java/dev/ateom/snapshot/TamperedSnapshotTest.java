package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Snapshot directories edited on disk (issue 12 items 5, 6, 7): reported, never trusted, never hanging. */
class TamperedSnapshotTest {
    @TempDir
    Path state;
    SnapshotStore store;
    Snapshot good;
    Snapshot bad;

    @BeforeEach
    void commitTwo() throws IOException {
        store = SnapshotStore.open(state);
        good = SnapshotFixture.commit(store, state, "good");
        bad = SnapshotFixture.commit(store, state, "bad");
    }

    /** How a snapshot dir was damaged, and what the reason must say. */
    @FunctionalInterface
    interface Tampering {
        void apply(SnapshotLayout layout) throws IOException;
    }

    static Stream<Arguments> tamperings() {
        return Stream.of(
                Arguments.of("invalid JSON", (Tampering) layout -> Files.writeString(layout.manifest(), "{ not json"), "not valid JSON"),
                Arguments.of("formatVersion 99", (Tampering) layout -> editManifest(layout, "\"formatVersion\" : 1", "\"formatVersion\" : 99"),
                        "formatVersion 99"),
                Arguments.of("unknown field", (Tampering) layout -> editManifest(layout, "\"formatVersion\" : 1,",
                        "\"formatVersion\" : 1, \"surprise\" : true,"), "surprise"),
                Arguments.of("id mismatch", (Tampering) layout -> editManifest(layout, "\"snapshotId\" : \"bad\"", "\"snapshotId\" : \"good\""),
                        "holds the manifest of good"),
                Arguments.of("truncated memory-ranges", (Tampering) layout -> {
                    try (FileChannel channel = FileChannel.open(layout.memoryRanges(), StandardOpenOption.WRITE)) {
                        channel.truncate(4096);
                    }
                }, "memory-ranges is 4096 bytes"),
                Arguments.of("manifest path outside the snapshot", (Tampering) layout -> editManifest(layout, "\"chv/config.json\"",
                        "\"../../../../../../../../etc/shadow\""), "must list exactly"),
                Arguments.of("durable.tar replaced by a fifo", (Tampering) layout -> replaceByFifo(layout.durableArchive()), "durable.tar"),
                Arguments.of("chv dir replaced by a symlink", (Tampering) layout -> {
                    Path real = layout.directory().getParent().resolveSibling("elsewhere-chv");
                    Files.move(layout.chvDirectory(), real);
                    Files.createSymbolicLink(layout.chvDirectory(), real);
                }, "chv is not a directory"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tamperings")
    void aCorruptSnapshotIsListedAsUnusableWithItsReasonAndCanBeDeleted(String description, Tampering tampering, String reason)
            throws IOException {
        tampering.apply(bad.layout());
        List<StoredSnapshot> all = store.readAll();
        assertThat(all).extracting(StoredSnapshot::id).containsExactly("bad", "good");
        assertThat(all.get(0).isUsable()).isFalse();
        assertThat(all.get(0).problem()).hasValueSatisfying(problem -> assertThat(problem).contains(reason));
        assertThat(all.get(1).isUsable()).isTrue();
        assertThat(store.delete("bad")).isTrue();
        assertThat(store.readAll()).extracting(StoredSnapshot::id).containsExactly("good");
    }

    @Test
    void verifyNeverReadsAManifestPathOutsideTheSnapshot() throws IOException {
        editManifest(bad.layout(), "\"chv/config.json\"", "\"../../../../../../../../etc/hostname\"");
        Snapshot tampered = new Snapshot("bad", bad.layout(), ManifestCodec.read(bad.layout().manifest()));
        SnapshotInspector.Verification verification = SnapshotInspector.verify(tampered);
        assertThat(verification.problems()).anySatisfy(problem -> assertThat(problem).contains("must list exactly"));
        assertThat(verification.problems()).noneSatisfy(problem -> assertThat(problem).contains("etc/hostname has"));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS) // a hang guard, not a measurement
    void aFifoAsDurableTarFailsAtOnceInsteadOfHanging() throws Exception {
        replaceByFifo(good.layout().durableArchive());
        assertThatThrownBy(() -> DurableArchive.extract(good.layout().durableArchive(), state.resolve("clone")))
                .isInstanceOf(SafeOpen.NotRegularFileException.class).hasMessageContaining("fifo");
        assertThat(SnapshotInspector.verify(good).problems()).isNotEmpty();
        assertThat(state.resolve("clone")).doesNotExist();
    }

    @Test
    void aSymlinkAsDurableTarIsNotFollowed() throws IOException {
        Path elsewhere = state.resolve("elsewhere.tar");
        Files.copy(good.layout().durableArchive(), elsewhere);
        Files.delete(good.layout().durableArchive());
        Files.createSymbolicLink(good.layout().durableArchive(), elsewhere);
        assertThatThrownBy(() -> DurableArchive.extract(good.layout().durableArchive(), state.resolve("clone")))
                .isInstanceOf(SafeOpen.NotRegularFileException.class).hasMessageContaining("symlink");
        assertThat(store.read("good")).hasValueSatisfying(stored -> assertThat(stored.isUsable()).isFalse());
    }

    @Test
    void verifyAppliesTheExtractionRulesToTheArchive() throws IOException {
        for (List<HostileArchiveTest.Item> items : List.of(
                List.of(HostileArchiveTest.Item.file("../evil")),
                List.of(HostileArchiveTest.Item.file("a/b"), HostileArchiveTest.Item.file("a//b")),
                List.of(HostileArchiveTest.Item.file("x".repeat(256))),
                List.of(HostileArchiveTest.Item.dir("./"), HostileArchiveTest.Item.file("1"), HostileArchiveTest.Item.file("2"),
                        HostileArchiveTest.Item.file("3"), HostileArchiveTest.Item.file("4"), HostileArchiveTest.Item.file("5"),
                        HostileArchiveTest.Item.file("6")))) {
            Path archive = bad.layout().durableArchive();
            Files.delete(archive);
            HostileArchiveTest.write(archive, items);
            assertThat(SnapshotInspector.verify(bad).problems()).as(items.toString())
                    .anySatisfy(problem -> assertThat(problem).contains("durable.tar would not extract"));
        }
    }

    private static void editManifest(SnapshotLayout layout, String from, String to) throws IOException {
        String manifest = Files.readString(layout.manifest());
        assertThat(manifest).contains(from);
        Files.writeString(layout.manifest(), manifest.replace(from, to));
    }

    private static void replaceByFifo(Path file) throws IOException {
        Files.delete(file);
        try {
            assertThat(new ProcessBuilder("mkfifo", file.toString()).inheritIO().start().waitFor()).isZero();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }
}
