package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.json.ApiJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12 items 3, 4, 5 and 7 through the API: durable names that are not UTF-8 survive a clone; a clone and a resume refuse a config.json ateom did not write; one corrupt snapshot never breaks the snapshot list, it is
 * shown as unusable with its reason and can be deleted; a durable tree deeper than PATH_MAX suspends,
 * and DELETE of its sandbox finishes.
 */
class CorruptSnapshotApiTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of());

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

    @Test
    void aCloneOfASnapshotWhoseConfigJsonWasEditedIsRefusedAndLeavesNothing() throws Exception {
        daemon.createOk(daemon.spec("edited", "edited"));
        String snapshot = daemon.post("/v1/sandboxes/edited/suspend", "{}").body().path("snapshotId").asText();
        EditedConfig edit = EditedConfig.addingADisk(snapshot);
        ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshot).put("id", "edited-clone");
        clone.putObject("identity").put("name", "edited-clone").put("namespace", "tests");
        var refused = daemon.post("/v1/sandboxes", clone);
        assertThat(refused.status()).as(refused.body().toString()).isEqualTo(422);
        assertThat(refused.body().toString()).contains("disks");
        assertThat(daemon.get("/v1/sandboxes/edited-clone").status()).isEqualTo(404);
        assertThat(daemon.stateDir().resolve("sandboxes/edited-clone")).doesNotExist();
        edit.undo();
        var cloned = daemon.post("/v1/sandboxes", clone);
        assertThat(cloned.status()).as(cloned.body().toString()).isEqualTo(201);
        assertThat(daemon.delete("/v1/sandboxes/edited-clone").status()).isEqualTo(204);
        assertThat(daemon.delete("/v1/sandboxes/edited?deleteSnapshots=true").status()).isEqualTo(204);
    }

    /**
     * A resume refuses a config.json ateom did not write as a clone does: before any VM runs, leaving the sandbox
     * suspended with no process, socket or restore dir of it, and resumes once the file is what ateom wrote.
     */
    @Test
    void aResumeOfASnapshotWhoseConfigJsonWasEditedIsRefusedAndLeavesItSuspended() throws Exception {
        daemon.createOk(daemon.spec("edited-r", "edited-r"));
        String snapshot = daemon.post("/v1/sandboxes/edited-r/suspend", "{}").body().path("snapshotId").asText();
        daemon.awaitTeardowns();
        daemon.awaitPoolFull();
        EditedConfig edit = EditedConfig.addingADisk(snapshot);

        var refused = daemon.post("/v1/sandboxes/edited-r/resume", "{}");
        assertThat(refused.status()).as(refused.body().toString()).isEqualTo(422);
        assertThat(refused.body().toString()).contains("disks");
        assertThat(daemon.get("/v1/sandboxes/edited-r").body().path("state").asText()).isEqualTo("SUSPENDED");
        daemon.awaitPoolFull();
        assertThat(TestTools.leakedChildrenBesides(Set.of())).as("processes after the refused resume").isEmpty();
        assertThat(TestTools.sockets(daemon.runDir().resolve("edited-r"))).as("sockets of the refused resume").isEmpty();
        assertThat(daemon.stateDir().resolve("sandboxes/edited-r/restore")).as("its restore dir").doesNotExist();

        edit.undo();
        var resumed = daemon.post("/v1/sandboxes/edited-r/resume", "{}");
        assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
        assertThat(daemon.delete("/v1/sandboxes/edited-r?deleteSnapshots=true").status()).isEqualTo(204);
    }

    /** A snapshot's config.json with a disk added, and the manifest's recorded size fixed to match (it is not signed). */
    private record EditedConfig(Path config, String original, Path manifest, String originalManifest) {
        static EditedConfig addingADisk(String snapshot) throws Exception {
            Path config = daemon.stateDir().resolve("snapshots").resolve(snapshot).resolve("chv/config.json");
            String original = Files.readString(config);
            ObjectNode edited = (ObjectNode) ApiJson.mapper().readTree(original);
            edited.putArray("disks").addObject().put("path", "/dev/vda");
            Files.writeString(config, edited.toString());
            Path manifest = config.getParent().resolveSibling("manifest.json");
            String originalManifest = Files.readString(manifest);
            ObjectNode manifestTree = (ObjectNode) ApiJson.mapper().readTree(originalManifest);
            for (JsonNode file : manifestTree.path("files")) {
                if (file.path("path").asText().equals("chv/config.json")) ((ObjectNode) file).put("size", Files.size(config));
            }
            Files.writeString(manifest, manifestTree.toString());
            return new EditedConfig(config, original, manifest, originalManifest);
        }

        void undo() throws Exception {
            Files.writeString(config, original);
            Files.writeString(manifest, originalManifest);
        }
    }

    @Test
    void durableNamesThatAreNotUtf8SurviveSuspendAndClone() throws Exception {
        daemon.createOk(daemon.spec("bytes", "bytes"));
        Path durable = daemon.stateDir().resolve("sandboxes/bytes/durable");
        // two names that decode to the same text in a UTF-8 locale; made by the shell, as a guest would make them
        sh("cd '" + durable + "' && printf one > \"$(printf 'bad\\377\\376')\" && printf two > \"$(printf 'bad\\376\\377')\"");
        String before = sh("cd '" + durable + "' && find . -name 'bad*' -print0 | sort -z | od -An -c");
        assertThat(before).contains("377 376").contains("376 377");
        String snapshot = daemon.post("/v1/sandboxes/bytes/suspend", "{}").body().path("snapshotId").asText();
        ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshot).put("id", "bytes-clone");
        clone.putObject("identity").put("name", "bytes-clone").put("namespace", "tests");
        var cloned = daemon.post("/v1/sandboxes", clone);
        assertThat(cloned.status()).as(cloned.body().toString()).isEqualTo(201);
        Path cloneDurable = daemon.stateDir().resolve("sandboxes/bytes-clone/durable");
        assertThat(sh("cd '" + cloneDurable + "' && find . -name 'bad*' -print0 | sort -z | od -An -c")).isEqualTo(before);
        assertThat(sh("cd '" + cloneDurable + "' && cat \"$(printf 'bad\\377\\376')\" \"$(printf 'bad\\376\\377')\"")).isEqualTo("onetwo");
        assertThat(daemon.delete("/v1/sandboxes/bytes-clone").status()).isEqualTo(204);
        assertThat(daemon.delete("/v1/sandboxes/bytes?deleteSnapshots=true").status()).isEqualTo(204);
    }

    private static String sh(String script) throws Exception {
        Process process = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        assertThat(process.waitFor()).as(output).isZero();
        return output;
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
