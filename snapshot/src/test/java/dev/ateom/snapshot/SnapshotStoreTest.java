package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotStoreTest {
    @TempDir
    Path state;

    @Test
    void commitPublishesACompleteSparseReadOnlySnapshot() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot snapshot = SnapshotFixture.commit(store, state, "snap-1");

        assertThat(store.list()).containsExactly("snap-1");
        Snapshot loaded = store.get("snap-1").orElseThrow();
        assertThat(loaded.manifest()).isEqualTo(snapshot.manifest());
        Manifest manifest = loaded.manifest();
        assertThat(manifest.formatVersion()).isEqualTo(1);
        assertThat(manifest.chvVersion()).isEqualTo("54.0.0");
        assertThat(manifest.source()).isEqualTo(SnapshotFixture.SOURCE);
        assertThat(manifest.vm()).isEqualTo(new Manifest.VmSizing(1, SnapshotFixture.MEMORY_SIZE));
        assertThat(manifest.shares()).containsEntry("ateSystemInfo", "system-info").hasSize(3);
        assertThat(manifest.memoryRanges().layout()).isEqualTo("sparse");
        assertThat(manifest.memoryRanges().allocatedBytes()).as("8 MiB of written zeros punched out").isEqualTo(2 * 4096);
        assertThat(manifest.durableArchive().entries()).isEqualTo(5); // ./ data/ data/notes.txt data/sub/ data/sub/more
        assertThat(manifest.files()).extracting(Manifest.FileEntry::path)
                .containsExactly("chv/config.json", "chv/state.json", "chv/memory-ranges", "durable.tar");
        assertThat(Files.getAttribute(loaded.layout().memoryRanges(), "unix:mode")).isEqualTo(0100444);
        assertThat(SnapshotInspector.verify(loaded).problems()).isEmpty();
        try (Stream<Path> entries = Files.list(store.snapshotsDirectory())) {
            assertThat(entries.map(p -> p.getFileName().toString())).containsExactly("snap-1");
        }
    }

    @Test
    void manifestJsonIsStableAndReadable() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot snapshot = SnapshotFixture.commit(store, state, "snap-json");
        String json = Files.readString(snapshot.layout().manifest());
        assertThat(json).startsWith("{\n  \"formatVersion\" : 1,\n  \"snapshotId\" : \"snap-json\",\n  \"createdAt\" : \"");
        assertThat(json).contains("\"memoryRanges\" : {\n    \"layout\" : \"sparse\"");
        assertThat(ManifestCodec.read(snapshot.layout().manifest())).isEqualTo(snapshot.manifest());
    }

    @Test
    void verifyFindsATamperedFile() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot snapshot = SnapshotFixture.commit(store, state, "snap-t");
        Path state = snapshot.layout().chvState();
        byte[] bytes = Files.readAllBytes(state);
        bytes[100] ^= 1;
        Files.write(state, bytes);
        assertThat(SnapshotInspector.verify(snapshot).problems()).singleElement().asString()
                .startsWith("chv/state.json has sha256");
    }

    @Test
    void verifyFindsATruncatedArchive() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot snapshot = SnapshotFixture.commit(store, state, "snap-a");
        Path archive = snapshot.layout().durableArchive();
        byte[] bytes = Files.readAllBytes(archive);
        Files.write(archive, Arrays.copyOf(bytes, 1500));
        assertThat(SnapshotInspector.verify(snapshot).problems()).anyMatch(p -> p.startsWith("durable.tar is 1500 bytes"))
                .anyMatch(p -> p.startsWith("durable.tar cannot be read to its end") || p.startsWith("durable.tar has "));
    }

    @Test
    void getRefusesAManifestFromTheFuture() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot snapshot = SnapshotFixture.commit(store, state, "snap-f");
        Path manifest = snapshot.layout().manifest();
        String json = Files.readString(manifest);
        Files.writeString(manifest, json.replaceFirst("\"chvVersion\"", "\"gpuState\" : \"x\",\n  \"chvVersion\""));
        assertThatThrownBy(() -> store.get("snap-f")).isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("field 'gpuState'").hasMessageContaining("newer ateom");
        Files.writeString(manifest, json.replace("\"formatVersion\" : 1", "\"formatVersion\" : 2"));
        assertThatThrownBy(() -> store.get("snap-f")).isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("formatVersion 2, newer than this ateom reads (1)");
    }

    @Test
    void anUnchangedManifestIsParsedOnceAndAChangedOneAgain() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot snapshot = SnapshotFixture.commit(store, state, "snap-p");
        Manifest first = store.get("snap-p").orElseThrow().manifest();
        assertThat(store.get("snap-p").orElseThrow().manifest()).as("the same bytes: not parsed again").isSameAs(first);
        // rewritten in place, same size, within the same clock tick: the bytes differ, so it is read anew
        Path manifest = snapshot.layout().manifest();
        Files.writeString(manifest, Files.readString(manifest).replace("\"formatVersion\" : 1", "\"formatVersion\" : 2"));
        assertThatThrownBy(() -> store.get("snap-p")).isInstanceOf(SnapshotFormatException.class)
                .hasMessageContaining("formatVersion 2");
    }

    @Test
    void theManifestACommitWroteIsReadWithoutAParse() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot committed = SnapshotFixture.commit(store, state, "snap-c");
        Manifest read = store.get("snap-c").orElseThrow().manifest();
        assertThat(read).as("the commit's own manifest, not a parse of its bytes").isSameAs(committed.manifest());
        assertThat(read).as("what a parse of the file gives").isEqualTo(ManifestCodec.read(committed.layout().manifest()));
        // a reopened store (a restarted daemon) has only the file: it parses it
        assertThat(SnapshotStore.open(state).get("snap-c").orElseThrow().manifest()).isNotSameAs(committed.manifest())
                .isEqualTo(committed.manifest());
    }

    @Test
    void getChecksThatTheFilesAreThere() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot snapshot = SnapshotFixture.commit(store, state, "snap-m");
        Files.delete(snapshot.layout().chvState());
        assertThatThrownBy(() -> store.get("snap-m")).hasMessageContaining("missing chv/state.json");
        assertThat(store.get("nothing-here")).isEmpty();
    }

    @Test
    void systemInfoIsNeverArchived() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Path sandbox = SnapshotFixture.sandbox(state, "sb-x");
        for (Path refused : new Path[] {sandbox.resolve("system-info"), sandbox.resolve("system-info/identity"), sandbox}) {
            try (SnapshotStaging staging = store.stage("snap-si")) {
                assertThatThrownBy(() -> staging.archiveDurable(refused, ArchiveCompression.NONE, ArchiveProgress.NONE))
                        .hasMessageContaining("system-info is never part of a snapshot");
                assertThat(staging.layout().durableArchive()).doesNotExist();
            }
        }
        assertThat(store.list()).isEmpty();
    }

    @Test
    void incompleteStagingIsRefusedAndRemovedOnClose() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Path sandbox = SnapshotFixture.sandbox(state, "sb-y");
        Path stagingDir;
        try (SnapshotStaging staging = store.stage("snap-i")) {
            stagingDir = staging.layout().directory();
            assertThat(staging.chvDirectory()).isEmptyDirectory();
            assertThat(staging.chvDestinationUrl()).isEqualTo("file://" + staging.chvDirectory());
            staging.archiveDurable(sandbox.resolve("durable"), ArchiveCompression.NONE, ArchiveProgress.NONE);
            assertThatThrownBy(() -> staging.commit(SnapshotFixture.METADATA)).hasMessageContaining("chv/config.json is missing");
            SnapshotFixture.writeChvFiles(staging.chvDirectory(), false);
            Files.writeString(staging.chvDirectory().resolve("stray"), "x");
            assertThatThrownBy(() -> staging.commit(SnapshotFixture.METADATA)).hasMessageContaining("unexpected files [chv/stray]");
            Files.delete(staging.chvDirectory().resolve("stray"));
            SnapshotMetadata wrongShares = new SnapshotMetadata(SnapshotFixture.SOURCE, "54.0.0", Map.of("ateRootfs", "rootfs"));
            assertThatThrownBy(() -> staging.commit(wrongShares)).hasMessageContaining("fs tags [ateDurable, ateRootfs, ateSystemInfo]");
        }
        assertThat(stagingDir).doesNotExist();
        assertThat(store.list()).isEmpty();
    }

    @Test
    void idsAreValidatedAndNeverReused() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        assertThatThrownBy(() -> store.stage("../evil")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.stage(".staging-x")).isInstanceOf(IllegalArgumentException.class);
        SnapshotFixture.commit(store, state, "snap-d");
        assertThatThrownBy(() -> store.stage("snap-d")).hasMessageContaining("already exists");
    }

    @Test
    void deleteRemovesEverything() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        SnapshotFixture.commit(store, state, "snap-del");
        assertThat(store.delete("snap-del")).isTrue();
        assertThat(store.delete("snap-del")).isFalse();
        assertThat(store.list()).isEmpty();
        try (Stream<Path> entries = Files.list(store.snapshotsDirectory())) {
            assertThat(entries).isEmpty();
        }
    }

    @Test
    void openSweepsLeftovers() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        SnapshotFixture.commit(store, state, "keep");
        Files.createDirectories(store.snapshotsDirectory().resolve(".staging-lost-1234/chv"));
        Files.createDirectories(store.snapshotsDirectory().resolve(".deleting-old-99"));
        SnapshotStore reopened = SnapshotStore.open(state);
        try (Stream<Path> entries = Files.list(reopened.snapshotsDirectory())) {
            assertThat(entries.map(p -> p.getFileName().toString())).containsExactly("keep");
        }
    }

    @Test
    void inspectorSummarizesSharesAndSizes() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot snapshot = SnapshotFixture.commit(store, state, "snap-s");
        SnapshotInspector.Summary summary = SnapshotInspector.summarize(snapshot);
        assertThat(summary.shares()).containsExactly(
                new SnapshotInspector.Share("ateRootfs", "rootfs", "/srv/ateom-rec/run/rootfs.sock"),
                new SnapshotInspector.Share("ateDurable", "durable", "/srv/ateom-rec/run/durable.sock"),
                new SnapshotInspector.Share("ateSystemInfo", "system-info", "/srv/ateom-rec/run/sysinfo.sock"));
        assertThat(summary.memoryRanges()).isEqualTo(new DiskUsage(SnapshotFixture.MEMORY_SIZE, 2 * 4096));
        assertThat(summary.durableArchiveEntries()).isEqualTo(5);
        assertThat(summary.durableArchiveBytes()).isEqualTo(Files.size(snapshot.layout().durableArchive()));
        assertThat(summary.apparentBytes()).isGreaterThan(SnapshotFixture.MEMORY_SIZE);
        assertThat(summary.allocatedBytes()).isLessThan(1L << 20);
    }

    @Test
    void systemInfoCheckIsCleanForAProperSnapshotAndFindsCopiedContent() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot clean = SnapshotFixture.commit(store, state, "snap-c");
        Path systemInfo = state.resolve("sandboxes/sb-snap-c/system-info");
        SnapshotInspector.SystemInfoCheck check = SnapshotInspector.checkNoSystemInfo(clean, Optional.of(systemInfo));
        assertThat(check.clean()).isTrue();
        assertThat(check.systemInfoFilesCompared()).isEqualTo(1);
        assertThat(check.archiveEntriesChecked()).isEqualTo(5);

        // a durable dir holding a copy of the identity file: found by content
        Path sandbox = SnapshotFixture.sandbox(state, "sb-leak");
        Files.copy(sandbox.resolve("system-info/identity/..data/name"), sandbox.resolve("durable/data/leaked"));
        Snapshot leaky;
        try (SnapshotStaging staging = store.stage("snap-leak")) {
            SnapshotFixture.writeChvFiles(staging.chvDirectory(), false);
            staging.archiveDurable(sandbox.resolve("durable"), ArchiveCompression.NONE, ArchiveProgress.NONE);
            leaky = staging.commit(SnapshotFixture.METADATA);
        }
        SnapshotInspector.SystemInfoCheck found = SnapshotInspector.checkNoSystemInfo(leaky, Optional.of(sandbox.resolve("system-info")));
        assertThat(found.findings()).containsExactly("durable.tar entry 'data/leaked' has the content of system-info file 'identity/..data/name'");

        Files.writeString(leaky.layout().directory().resolve("extra"), "x");
        assertThat(SnapshotInspector.checkNoSystemInfo(leaky, Optional.empty()).findings())
                .containsExactly("unexpected file in the snapshot: extra");
        assertThat(Files.exists(leaky.layout().directory().resolve("extra"), LinkOption.NOFOLLOW_LINKS)).isTrue();
    }
}
