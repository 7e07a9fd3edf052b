package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Remote manifests that could make a pull write outside a file, leave a gap, or misread a newer format are refused. */
class RemoteManifestCodecTest {
    @TempDir
    Path state;
    private byte[] valid;

    @BeforeEach
    void manifestOfARealSnapshot() throws IOException {
        Snapshot snapshot = new GuestSnapshot().memoryBytes(4L << 20).memory(0, 8192, 1).durableFile("f", 100, 2)
                .commit(SnapshotStore.open(state), "snap-1");
        List<RemoteFile> files = snapshot.manifest().files().stream().map(f -> new RemoteFile(f.path(), f.size(), "test",
                f.size() == 0 ? List.of() : List.of(ChunkRef.data(0, f.size(), new ChunkHash("a".repeat(64)))))).toList();
        valid = RemoteManifestCodec.toBytes(new RemoteManifest(1, "snap-1", Instant.now(),
                new HostRequirements("54.0.0", StoreTestBase.HOST_CPU), 0, files, RemoteManifestCodec.localToTree(snapshot.manifest())));
    }

    @Test
    void aValidManifestReadsBack() throws IOException {
        RemoteManifest manifest = RemoteManifestCodec.read("snap-1", valid);
        assertThat(RemoteManifestCodec.local(manifest).snapshotId()).isEqualTo("snap-1");
    }

    @Test
    void newerFormatsUnknownFieldsAndOtherIdsAreRefused() throws IOException {
        ObjectNode tree = tree();
        tree.put("formatVersion", 2);
        assertThatThrownBy(() -> read(tree)).isInstanceOf(RemoteFormatException.class).hasMessageContaining("newer");
        ObjectNode unknown = tree();
        unknown.put("surprise", true);
        assertThatThrownBy(() -> read(unknown)).isInstanceOf(RemoteFormatException.class).hasMessageContaining("surprise");
        assertThatThrownBy(() -> RemoteManifestCodec.read("snap-2", valid)).isInstanceOf(RemoteFormatException.class);
    }

    @Test
    void piecesMustTileEachFileExactly() throws IOException {
        ObjectNode gap = tree();
        ((ObjectNode) pieces(gap).get(0)).put("offset", 1);
        assertThatThrownBy(() -> read(gap)).isInstanceOf(RemoteFormatException.class).hasMessageContaining("invalid piece");
        ObjectNode hole = tree();
        ((ObjectNode) pieces(hole).get(0)).remove("sha256");
        ((ObjectNode) pieces(hole).get(0)).put("hole", true);
        assertThatThrownBy(() -> read(hole)).isInstanceOf(RemoteFormatException.class).hasMessageContaining("hole");
        ObjectNode path = tree();
        ((ObjectNode) path.withArray("files").get(0)).put("path", "../escape");
        assertThatThrownBy(() -> read(path)).isInstanceOf(RemoteFormatException.class).hasMessageContaining("../escape");
    }

    private ObjectNode tree() throws IOException {
        return (ObjectNode) RemoteManifestCodec.JSON.readTree(valid);
    }

    /** The pieces of chv/config.json (the first file). */
    private static ArrayNode pieces(ObjectNode tree) {
        return (ArrayNode) tree.withArray("files").get(0).get("chunks");
    }

    private static RemoteManifest read(ObjectNode tree) throws IOException {
        return RemoteManifestCodec.read("snap-1", RemoteManifestCodec.JSON.writeValueAsBytes(tree));
    }
}
