package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.chv.ChvClient;
import dev.ateom.chv.VmState;
import dev.ateom.microvm.json.ApiJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Named and labelled snapshots and their lineage, through HTTP against an in-process daemon (CHV stand-in,
 * {@code none} backend): name and labels given at suspend and checkpoint are in the committed manifest, shown by
 * inspect and the listing, and filter it; the parent is the snapshot the VM was restored from; bad names, labels and
 * filters are 400s naming the field; a name taken on the host is a 409 before anything is paused or written.
 */
class SnapshotNamesAndLineageTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of());

    @Test
    void aSuspendNamesAndLabelsItsSnapshotAndTheSnapshotAfterAResumeHasItAsParent() throws Exception {
        daemon.createOk(daemon.spec("named-1", "named-1"));
        var suspended = daemon.post("/v1/sandboxes/named-1/suspend?name=golden-1", labels(Map.of("team", "a", "ateom.dev/tier", "gold")));
        assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
        String first = suspended.body().path("snapshotId").asText();

        JsonNode inspected = daemon.get("/v1/snapshots/" + first).body();
        assertThat(inspected.path("name").asText()).isEqualTo("golden-1");
        assertThat(inspected.path("labels")).isEqualTo(json("{\"ateom.dev/tier\":\"gold\",\"team\":\"a\"}"));
        assertThat(inspected.hasNonNull("parentSnapshotId")).as("the first snapshot after a fresh create has no parent").isFalse();
        // in the committed manifest itself, so it travels with a pushed snapshot
        JsonNode manifest = ApiJson.mapper().readTree(daemon.stateDir().resolve("snapshots").resolve(first).resolve("manifest.json").toFile());
        assertThat(manifest.path("annotations").path("ateom.dev/snapshot-name").asText()).isEqualTo("golden-1");
        assertThat(listed(first).path("name").asText()).isEqualTo("golden-1");
        assertThat(listed(first).path("labels").path("team").asText()).isEqualTo("a");

        assertThat(daemon.post("/v1/sandboxes/named-1/resume", "{}").status()).isEqualTo(200);
        assertThat(daemon.get("/v1/sandboxes/named-1").body().path("runtime").path("restoredFromSnapshotId").asText()).isEqualTo(first);
        var again = daemon.post("/v1/sandboxes/named-1/suspend", "");
        assertThat(again.status()).as("an absent body still works: " + again.body()).isEqualTo(200);
        String second = again.body().path("snapshotId").asText();
        JsonNode secondInspected = daemon.get("/v1/snapshots/" + second).body();
        assertThat(secondInspected.path("parentSnapshotId").asText()).as("restored from the first").isEqualTo(first);
        assertThat(secondInspected.hasNonNull("name")).isFalse();
        assertThat(secondInspected.path("labels")).isEmpty();
        assertThat(listed(second).path("parentSnapshotId").asText()).isEqualTo(first);
    }

    @Test
    void aCheckpointNamesAndLabelsItsSnapshotAndACloneOfItRecordsItAsParent() throws Exception {
        daemon.createOk(daemon.spec("named-cp", "named-cp"));
        var checkpoint = daemon.post("/v1/sandboxes/named-cp/checkpoint?name=cp.base", labels(Map.of("stage", "base")));
        assertThat(checkpoint.status()).as(checkpoint.body().toString()).isEqualTo(200);
        String base = checkpoint.body().path("snapshotId").asText();
        assertThat(checkpoint.body().path("sandbox").path("state").asText()).isEqualTo("RUNNING");
        JsonNode inspected = daemon.get("/v1/snapshots/" + base).body();
        assertThat(inspected.path("name").asText()).isEqualTo("cp.base");
        assertThat(inspected.path("labels").path("stage").asText()).isEqualTo("base");
        assertThat(inspected.hasNonNull("parentSnapshotId")).isFalse();

        ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", base).put("id", "named-cp-clone");
        clone.putObject("identity").put("name", "named-cp-clone").put("namespace", "tests");
        daemon.createOk(clone);
        var fromClone = daemon.post("/v1/sandboxes/named-cp-clone/checkpoint", "{}");
        assertThat(fromClone.status()).as(fromClone.body().toString()).isEqualTo(200);
        assertThat(daemon.get("/v1/snapshots/" + fromClone.body().path("snapshotId").asText()).body().path("parentSnapshotId").asText())
                .as("the clone's VM was restored from the checkpoint").isEqualTo(base);
        // a checkpoint does not restore the VM: the next snapshot's parent is still what the VM came from
        var next = daemon.post("/v1/sandboxes/named-cp/checkpoint", "{}");
        assertThat(daemon.get("/v1/snapshots/" + next.body().path("snapshotId").asText()).body().hasNonNull("parentSnapshotId")).isFalse();
    }

    @Test
    void theListingFiltersBySandboxNameAndLabelsAllOfWhichMustMatch() throws Exception {
        daemon.createOk(daemon.spec("filter-a", "filter-a"));
        daemon.createOk(daemon.spec("filter-b", "filter-b"));
        String a1 = daemon.post("/v1/sandboxes/filter-a/checkpoint?name=fa-1", labels(Map.of("env", "dev", "run", "1"))).body().path("snapshotId").asText();
        String a2 = daemon.post("/v1/sandboxes/filter-a/checkpoint", labels(Map.of("env", "prod", "run", "1"))).body().path("snapshotId").asText();
        String b1 = daemon.post("/v1/sandboxes/filter-b/checkpoint?name=fb-1", labels(Map.of("env", "dev"))).body().path("snapshotId").asText();

        assertThat(ids("?sandbox=filter-a")).containsExactlyInAnyOrder(a1, a2);
        assertThat(ids("?sandbox=filter-b")).containsExactly(b1);
        assertThat(ids("?label=env=dev")).containsExactlyInAnyOrder(a1, b1);
        assertThat(ids("?label=env%3Ddev&label=run=1")).containsExactly(a1);
        assertThat(ids("?name=fb-1")).containsExactly(b1);
        assertThat(ids("?sandbox=filter-a&label=env=dev")).containsExactly(a1);
        assertThat(ids("?sandbox=filter-b&name=fa-1")).isEmpty();
        assertThat(ids("?label=run=")).as("an empty value matches only an empty value").isEmpty();
        assertThat(ids("?sandbox=filter-none")).isEmpty();
    }

    @Test
    void badNamesLabelsAndFiltersAre400sNamingTheFieldAndChangeNothing() throws Exception {
        daemon.createOk(daemon.spec("bad-tags", "bad-tags"));
        List<String> before = snapshotDirEntries();
        assertField(daemon.post("/v1/sandboxes/bad-tags/suspend?name=Not_A_Name", "{}"), "name");
        assertField(daemon.post("/v1/sandboxes/bad-tags/suspend?name=", "{}"), "name");
        assertField(daemon.post("/v1/sandboxes/bad-tags/checkpoint?name=" + "x".repeat(64), "{}"), "name");
        assertField(daemon.post("/v1/sandboxes/bad-tags/suspend", labels(Map.of("bad key", "v"))), "labels.bad key");
        assertField(daemon.post("/v1/sandboxes/bad-tags/checkpoint", labels(Map.of("k", "v".repeat(64)))), "labels.k");
        assertField(daemon.post("/v1/sandboxes/bad-tags/suspend", labels(Map.of("Upper.Prefix/k", "v"))), "labels.Upper.Prefix/k");
        assertField(daemon.post("/v1/sandboxes/bad-tags/suspend", "{\"labels\":{\"k\":null}}"), "labels.k");
        assertField(daemon.post("/v1/sandboxes/bad-tags/suspend", "{\"tags\":{}}"), "tags");
        assertField(daemon.get("/v1/snapshots?label=novalue"), "label");
        assertField(daemon.get("/v1/snapshots?label=bad%20key=v"), "label");
        assertField(daemon.get("/v1/snapshots?label=k=a&label=k=b"), "label");
        assertField(daemon.get("/v1/snapshots?sandbox=Not_An_Id"), "sandbox");
        assertField(daemon.get("/v1/snapshots?name=-x"), "name");
        assertThat(daemon.get("/v1/snapshots?remote=true&label=k=v").status()).as("filters are for this host's listing").isEqualTo(400);
        assertThat(daemon.get("/v1/sandboxes/bad-tags").body().path("state").asText()).isEqualTo("RUNNING");
        assertThat(snapshotDirEntries()).as("nothing staged or committed").isEqualTo(before);
    }

    @Test
    void aNameTakenOnTheHostIsA409BeforeTheVmIsPausedOrAnythingWritten() throws Exception {
        daemon.createOk(daemon.spec("dup-a", "dup-a"));
        JsonNode runtime = daemon.createOk(daemon.spec("dup-b", "dup-b")).body().path("sandbox").path("runtime");
        assertThat(daemon.post("/v1/sandboxes/dup-a/suspend?name=only-once", "{}").status()).isEqualTo(200);
        List<String> before = snapshotDirEntries();

        for (String operation : List.of("suspend", "checkpoint")) {
            var refused = daemon.post("/v1/sandboxes/dup-b/" + operation + "?name=only-once", labels(Map.of("k", "v")));
            assertThat(refused.status()).as(refused.body().toString()).isEqualTo(409);
            assertThat(refused.body().path("type").asText()).endsWith("snapshot-name-taken");
            assertThat(refused.body().path("detail").asText()).contains("only-once");
        }
        assertThat(daemon.get("/v1/sandboxes/dup-b").body().path("state").asText()).isEqualTo("RUNNING");
        assertThat(daemon.get("/v1/sandboxes/dup-b").body().path("lastOperation").asText()).as("no operation began").isEqualTo("create");
        try (ChvClient chv = new ChvClient(Path.of(runtime.path("apiSocket").asText()))) {
            assertThat(chv.info().state()).as("never paused").isEqualTo(VmState.Running);
        }
        assertThat(snapshotDirEntries()).as("no snapshot dir written, not even a staging one").isEqualTo(before);
        // the name is free again once its snapshot is deleted
        String taken = ids("?name=only-once").getFirst();
        assertThat(daemon.delete("/v1/snapshots/" + taken + "?force=true").status()).isEqualTo(204);
        assertThat(daemon.post("/v1/sandboxes/dup-b/checkpoint?name=only-once", "{}").status()).isEqualTo(200);
    }

    private static String labels(Map<String, String> labels) throws Exception {
        ObjectNode body = ApiJson.mapper().createObjectNode();
        body.set("labels", ApiJson.mapper().valueToTree(labels));
        return body.toString();
    }

    private static JsonNode json(String text) throws Exception { return ApiJson.mapper().readTree(text); }

    private static JsonNode listed(String id) throws Exception {
        for (JsonNode item : daemon.get("/v1/snapshots").body().path("items")) {
            if (item.path("id").asText().equals(id)) return item;
        }
        throw new AssertionError("snapshot " + id + " not listed");
    }

    private static List<String> ids(String query) throws Exception {
        var listed = daemon.get("/v1/snapshots" + query);
        assertThat(listed.status()).as(listed.body().toString()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        listed.body().path("items").forEach(item -> ids.add(item.path("id").asText()));
        return ids;
    }

    private static void assertField(DaemonHarness.Response response, String field) {
        assertThat(response.status()).as(response.body().toString()).isEqualTo(400);
        assertThat(response.body().path("errors").findValuesAsText("field")).as(response.body().toString()).contains(field);
    }

    private static List<String> snapshotDirEntries() throws Exception {
        Path snapshots = daemon.stateDir().resolve("snapshots");
        if (!Files.isDirectory(snapshots)) return List.of();
        try (Stream<Path> entries = Files.list(snapshots)) {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
