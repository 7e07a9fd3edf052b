package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RestoreDirectoryTest {
    @TempDir
    Path state;

    static RestoreSockets socketsFor(String sandbox) {
        Path run = Path.of("/run/ateom", sandbox);
        return new RestoreSockets(Map.of("ateRootfs", run.resolve("rootfs.sock"), "ateDurable", run.resolve("durable.sock"),
                "ateSystemInfo", run.resolve("sysinfo.sock")), Optional.of(run.resolve("vsock.sock")),
                Optional.of(run.resolve("serial.log")), Optional.empty());
    }

    /** Sockets for the rootfs share alone: the snapshot's durable and system-info tags have none. */
    static RestoreSockets socketsMissingTwoTags() {
        return new RestoreSockets(Map.of("ateRootfs", Path.of("/r.sock")), Optional.of(Path.of("/v.sock")),
                Optional.of(Path.of("/s.log")), Optional.empty());
    }

    @Test
    void clonesShareTheSnapshotFilesAndGetTheirOwnConfig() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot snapshot = SnapshotFixture.commit(store, state, "base");
        byte[] configBefore = Files.readAllBytes(snapshot.layout().chvConfig());
        Files.createDirectories(state.resolve("sandboxes/c1"));

        RestoreDirectory.Prepared first = RestoreDirectory.prepare(snapshot.layout(), state.resolve("sandboxes/c1/restore"), socketsFor("c1"));
        RestoreDirectory.Prepared second = RestoreDirectory.prepare(snapshot.layout(), state.resolve("sandboxes/c2-restore"), socketsFor("c2"));

        for (RestoreDirectory.Prepared prepared : new RestoreDirectory.Prepared[] {first, second}) {
            assertThat(prepared.sourceUrl()).isEqualTo("file://" + prepared.directory());
            assertThat(prepared.memoryRangesHow()).isEqualTo(FileCloner.Method.HARD_LINK);
            assertThat(Files.isSameFile(prepared.directory().resolve("memory-ranges"), snapshot.layout().memoryRanges())).isTrue();
            assertThat(Files.isSameFile(prepared.directory().resolve("state.json"), snapshot.layout().chvState())).isTrue();
            assertThat(Files.isSameFile(prepared.directory().resolve("config.json"), snapshot.layout().chvConfig())).isFalse();
        }
        JsonNode c1 = new ObjectMapper().readTree(first.directory().resolve("config.json").toFile());
        JsonNode c2 = new ObjectMapper().readTree(second.directory().resolve("config.json").toFile());
        assertThat(c1.at("/fs/1/socket").asText()).isEqualTo("/run/ateom/c1/durable.sock");
        assertThat(c2.at("/fs/1/socket").asText()).isEqualTo("/run/ateom/c2/durable.sock");
        assertThat(c2.at("/vsock/socket").asText()).isEqualTo("/run/ateom/c2/vsock.sock");

        assertThat(Files.readAllBytes(snapshot.layout().chvConfig())).as("snapshot stays immutable").isEqualTo(configBefore);
        assertThat(SnapshotInspector.verify(snapshot).ok()).isTrue();

        // the link keeps memory-ranges alive for an OnDemand VM even if the snapshot is deleted
        store.delete("base");
        assertThat(Files.size(first.directory().resolve("memory-ranges"))).isEqualTo(SnapshotFixture.MEMORY_SIZE);
        RestoreDirectory.discard(first.directory());
        assertThat(first.directory()).doesNotExist();
    }

    /**
     * The config a restore dir gets is the one that was read (and checked) before, not a second read of the file: an
     * edit in between (here a disk naming a host file, which the policy refuses) never reaches the hypervisor.
     */
    @Test
    void theConfigReadOnceIsTheOneRewrittenWhateverTheFileHoldsByThen() throws IOException {
        Snapshot snapshot = SnapshotFixture.commit(SnapshotStore.open(state), state, "base");
        ChvConfig checked = ChvConfig.read(snapshot.layout().chvConfig());
        ObjectMapper json = new ObjectMapper();
        ObjectNode edited = (ObjectNode) json.readTree(snapshot.layout().chvConfig().toFile());
        edited.putArray("disks").addObject().put("path", "/etc/shadow");
        Files.write(snapshot.layout().chvConfig(), json.writeValueAsBytes(edited));

        RestoreDirectory.Prepared fromChecked = RestoreDirectory.prepare(snapshot.layout(), checked, state.resolve("r1"), socketsFor("c1"));
        RestoreDirectory.Prepared again = RestoreDirectory.prepare(snapshot.layout(), checked, state.resolve("r2"), socketsFor("c2"));
        RestoreDirectory.Prepared fromFile = RestoreDirectory.prepare(snapshot.layout(), state.resolve("r3"), socketsFor("c3"));

        JsonNode first = json.readTree(fromChecked.directory().resolve("config.json").toFile());
        assertThat(first.has("disks")).as("the edit made after the read").isFalse();
        assertThat(first.at("/fs/1/socket").asText()).isEqualTo("/run/ateom/c1/durable.sock");
        JsonNode second = json.readTree(again.directory().resolve("config.json").toFile());
        assertThat(second.at("/fs/1/socket").asText()).as("each rewrite works on its own copy").isEqualTo("/run/ateom/c2/durable.sock");
        assertThat(json.readTree(fromFile.directory().resolve("config.json").toFile()).at("/disks/0/path").asText())
                .as("a restore that reads the file again sees the edit").isEqualTo("/etc/shadow");
    }

    @Test
    void aFailedPrepareLeavesNoDirectory() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot snapshot = SnapshotFixture.commit(store, state, "base");
        Path dir = state.resolve("restore-bad");
        assertThatThrownBy(() -> RestoreDirectory.prepare(snapshot.layout(), dir, socketsMissingTwoTags())).isInstanceOf(SnapshotFormatException.class);
        assertThat(dir).doesNotExist();
    }

    @Test
    void anExistingDirectoryIsNotReused() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot snapshot = SnapshotFixture.commit(store, state, "base");
        Path dir = Files.createDirectories(state.resolve("restore-old"));
        Files.writeString(dir.resolve("config.json"), "stale");
        assertThatThrownBy(() -> RestoreDirectory.prepare(snapshot.layout(), dir, socketsFor("x")))
                .isInstanceOf(FileAlreadyExistsException.class);
        assertThat(dir.resolve("config.json")).hasContent("stale");
    }

    @Test
    void aDirectoryMadeEmptyAheadIsFilledInPlaceWithTheSameFiles() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot snapshot = SnapshotFixture.commit(store, state, "base");
        ChvConfig config = ChvConfig.read(snapshot.layout().chvConfig());
        Path dir = RestoreDirectory.create(state.resolve("restore-ahead"));
        Object inode = Files.getAttribute(dir, "unix:ino");

        RestoreDirectory.Prepared filled = RestoreDirectory.fill(snapshot.layout(), config, dir, socketsFor("c1"));
        RestoreDirectory.Prepared whole = RestoreDirectory.prepare(snapshot.layout(), config, state.resolve("restore-whole"), socketsFor("c1"));

        assertThat(filled.directory()).isEqualTo(dir);
        assertThat(Files.getAttribute(dir, "unix:ino")).as("the same dir, filled where it was made").isEqualTo(inode);
        for (String file : new String[] {RestoreDirectory.CONFIG, RestoreDirectory.STATE, RestoreDirectory.MEMORY_RANGES}) {
            assertThat(dir.resolve(file)).hasSameBinaryContentAs(whole.directory().resolve(file));
        }
        assertThat(filled.memoryRangesHow()).isEqualTo(FileCloner.Method.HARD_LINK);
    }

    @Test
    void aFailedFillLeavesTheDirectoryEmptyAndAFullOneIsNotFilled() throws IOException {
        SnapshotStore store = SnapshotStore.open(state);
        Snapshot snapshot = SnapshotFixture.commit(store, state, "base");
        ChvConfig config = ChvConfig.read(snapshot.layout().chvConfig());
        Path dir = RestoreDirectory.create(state.resolve("restore-ahead"));

        assertThatThrownBy(() -> RestoreDirectory.fill(snapshot.layout(), config, dir, socketsMissingTwoTags())).isInstanceOf(SnapshotFormatException.class);
        assertThat(dir).isEmptyDirectory();

        Files.writeString(dir.resolve("stray"), "not the fill's");
        assertThatThrownBy(() -> RestoreDirectory.fill(snapshot.layout(), config, dir, socketsFor("x")))
                .isInstanceOf(FileAlreadyExistsException.class);
        assertThat(dir.resolve("stray")).hasContent("not the fill's");
        assertThat(dir.resolve(RestoreDirectory.CONFIG)).doesNotExist();
    }
}
