package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12 items 4 and 5 through the API: one corrupt snapshot never breaks the snapshot list, it is
 * shown as unusable with its reason and can be deleted; a durable tree deeper than PATH_MAX suspends,
 * and DELETE of its sandbox finishes.
 */
class CorruptSnapshotApiTest {
    @TempDir static Path dir;
    static DaemonHarness daemon;

    @BeforeAll
    static void start() throws Exception {
        daemon = new DaemonHarness(dir, Map.of());
    }

    @AfterAll
    static void stop() {
        if (daemon != null) daemon.close();
    }

    @Test
    void aCorruptSnapshotIsListedAsUnusableInspectedAndDeleted() throws Exception {
        daemon.createOk(daemon.spec("fine", "fine"));
        daemon.createOk(daemon.spec("broken", "broken"));
        String fine = daemon.post("/v1/sandboxes/fine/suspend", "{}").body().path("snapshotId").asText();
        String broken = daemon.post("/v1/sandboxes/broken/suspend", "{}").body().path("snapshotId").asText();
        Path manifest = daemon.stateDir().resolve("snapshots").resolve(broken).resolve("manifest.json");
        Files.writeString(manifest, Files.readString(manifest).replace("\"formatVersion\" : 1", "\"formatVersion\" : 99"));

        var list = daemon.get("/v1/snapshots");
        assertThat(list.status()).as(list.body().toString()).isEqualTo(200);
        JsonNode brokenRow = null;
        JsonNode fineRow = null;
        for (JsonNode row : list.body().path("items")) {
            if (row.path("id").asText().equals(broken)) brokenRow = row;
            if (row.path("id").asText().equals(fine)) fineRow = row;
        }
        assertThat(fineRow).isNotNull();
        assertThat(fineRow.path("usable").asBoolean()).isTrue();
        assertThat(brokenRow).isNotNull();
        assertThat(brokenRow.path("usable").asBoolean(true)).isFalse();
        assertThat(brokenRow.path("problem").asText()).contains("formatVersion 99");

        var inspected = daemon.get("/v1/snapshots/" + broken + "?verify=true");
        assertThat(inspected.status()).as(inspected.body().toString()).isEqualTo(200);
        assertThat(inspected.body().path("usable").asBoolean(true)).isFalse();
        assertThat(inspected.body().path("problems").toString()).contains("formatVersion 99");

        var deleted = daemon.delete("/v1/snapshots/" + broken + "?force=true");
        assertThat(deleted.status()).as(String.valueOf(deleted.body())).isEqualTo(204);
        assertThat(daemon.get("/v1/snapshots/" + broken).status()).isEqualTo(404);
        assertThat(daemon.get("/v1/snapshots/" + fine).status()).isEqualTo(200);

        assertThat(daemon.delete("/v1/sandboxes/fine?deleteSnapshots=true").status()).isEqualTo(204);
        assertThat(daemon.delete("/v1/sandboxes/broken?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void aDurableTreeDeeperThanPathMaxSuspendsResumesAndDeletes() throws Exception {
        daemon.createOk(daemon.spec("deep", "deep"));
        Path durable = daemon.stateDir().resolve("sandboxes/deep/durable");
        // two chains of 700 levels ("ddd/" = 2800 bytes each), one moved to the bottom of the other:
        // 1400 levels, about 5600 bytes of path, beyond PATH_MAX, without ever naming such a path
        Path first = chain(durable.resolve("first"), 700);
        Path second = chain(durable.resolve("second"), 700);
        Files.writeString(second.resolve("bottom.txt"), "at the bottom");
        Files.move(durable.resolve("second"), first.resolve("second"));
        var suspended = daemon.post("/v1/sandboxes/deep/suspend", "{}");
        assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
        var resumed = daemon.post("/v1/sandboxes/deep/resume", "{}");
        assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
        var deleted = daemon.delete("/v1/sandboxes/deep?deleteSnapshots=true");
        assertThat(deleted.status()).as(String.valueOf(deleted.body())).isEqualTo(204);
        assertThat(daemon.get("/v1/sandboxes/deep").status()).isEqualTo(404);
        assertThat(daemon.stateDir().resolve("sandboxes/deep")).doesNotExist();
    }

    private static Path chain(Path top, int depth) throws Exception {
        Path path = top;
        Files.createDirectories(path);
        for (int i = 0; i < depth; i++) {
            path = path.resolve("ddd");
            Files.createDirectory(path);
        }
        return path;
    }
}
