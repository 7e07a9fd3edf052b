package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Annotations given at commit are in manifest.json and read back; a manifest without them reads as empty. */
class ManifestAnnotationsTest {
    @TempDir
    Path state;

    @Test
    void annotationsSurviveCommitAndRead() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Path durable = SnapshotFixture.sandbox(state, "sb-1").resolve("durable");
        try (SnapshotStaging staging = store.stage("snap-a")) {
            SnapshotFixture.writeChvFiles(staging.chvDirectory(), false);
            staging.archiveDurable(durable, ArchiveCompression.NONE, ArchiveProgress.NONE);
            staging.commit(new SnapshotMetadata(SnapshotFixture.SOURCE, "54.0.0", SnapshotFixture.SHARES,
                    Map.of("ateom.dev/sandbox-spec", "{\"vcpus\":1}")));
        }
        Snapshot loaded = store.get("snap-a").orElseThrow();
        assertThat(loaded.manifest().annotations()).containsExactly(Map.entry("ateom.dev/sandbox-spec", "{\"vcpus\":1}"));
        assertThat(Files.readString(loaded.layout().manifest())).contains("\"annotations\" : {");
        assertThat(SnapshotInspector.verify(loaded).problems()).isEmpty();
    }

    @Test
    void manifestWithoutAnnotationsReadsAsEmpty() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot snapshot = SnapshotFixture.commit(store, state, "snap-b");
        String json = Files.readString(snapshot.layout().manifest()).replace(",\n  \"annotations\" : { }", "");
        assertThat(json).doesNotContain("annotations");
        Path copy = Files.writeString(state.resolve("old-manifest.json"), json);
        assertThat(ManifestCodec.read(copy).annotations()).isEmpty();
    }
}
