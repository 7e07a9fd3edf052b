package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.timing.FailPoints;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fork through HTTP against an in-process daemon (CHV stand-in, {@code none} backend): from a running sandbox
 * (one checkpoint) and from a suspended one (its latest snapshot), clones with distinct identities, a failing
 * clone reported beside the others, and requests refused field by field.
 */
class ForkTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of());

    @AfterEach
    void disarmAndDeleteAll() throws Exception {
        FailPoints.disarmAll();
        daemon.deleteAllSandboxesBut();
    }

    @Test
    void aRunningSandboxIsCheckpointedOnceAndForkedIntoClonesWithTheirOwnIdentities() throws Exception {
        JsonNode source = daemon.createOk(daemon.spec("fk-src", "fk-src")).body().path("sandbox");
        Files.writeString(daemon.stateDir().resolve("sandboxes/fk-src/durable/data/seed"), "from the source");

        var forked = daemon.post("/v1/sandboxes/fk-src/fork", "{\"count\": 3, \"namePrefix\": \"worker\"}");
        assertThat(forked.status()).as(forked.body().toString()).isEqualTo(200);
        JsonNode result = forked.body();
        String snapshotId = result.path("snapshotId").asText();
        assertThat(result.path("succeeded").asInt()).isEqualTo(3);
        assertThat(result.path("failed").asInt()).isZero();
        assertThat(result.path("checkpointTimingsMs").has("pauseWindow")).isTrue();
        assertThat(result.path("timingsMs").fieldNames()).toIterable().containsExactly("checkpoint", "clones", "total");
        Set<String> uids = new HashSet<>();
        int i = 1;
        for (JsonNode clone : result.path("clones")) {
            assertThat(clone.path("id").asText()).isEqualTo("worker-" + i);
            assertThat(clone.path("state").asText()).isEqualTo("RUNNING");
            assertThat(clone.path("sandbox").path("sourceSnapshotId").asText()).isEqualTo(snapshotId);
            assertThat(clone.path("sandbox").path("identity").path("namespace").asText()).isEqualTo("tests");
            uids.add(clone.path("sandbox").path("identity").path("uid").asText());
            Path clonedDir = daemon.stateDir().resolve("sandboxes/worker-" + i);
            assertThat(Files.readString(clonedDir.resolve("durable/data/seed"))).isEqualTo("from the source");
            assertThat(Files.readString(clonedDir.resolve("system-info/identity/name"))).isEqualTo("worker-" + i);
            i++;
        }
        assertThat(uids).hasSize(3).doesNotContain(source.path("identity").path("uid").asText());

        JsonNode after = daemon.get("/v1/sandboxes/fk-src").body();
        assertThat(after.path("state").asText()).isEqualTo("RUNNING");
        assertThat(after.path("runtime")).as("the source's VM kept running").isEqualTo(source.path("runtime"));
        assertThat(after.path("snapshotIds")).hasSize(1);
        assertThat(after.path("latestSnapshotId").asText()).isEqualTo(snapshotId);
    }

    @Test
    void aSuspendedSandboxIsForkedFromItsLatestSnapshotWithTheIdentitiesAsked() throws Exception {
        daemon.createOk(daemon.spec("fk-susp", "fk-susp"));
        String latest = daemon.post("/v1/sandboxes/fk-susp/suspend", "{}").body().path("snapshotId").asText();
        ObjectNode body = ApiJson.mapper().createObjectNode();
        body.putArray("identities").add(identity("alpha", "team-a")).add(identity("beta", "team-b"));

        var forked = daemon.post("/v1/sandboxes/fk-susp/fork", body);
        assertThat(forked.status()).as(forked.body().toString()).isEqualTo(200);
        assertThat(forked.body().path("snapshotId").asText()).isEqualTo(latest);
        assertThat(forked.body().has("checkpointTimingsMs")).isFalse();
        assertThat(forked.body().path("clones")).hasSize(2);
        assertThat(forked.body().path("clones").get(0).path("sandbox").path("identity").path("namespace").asText()).isEqualTo("team-a");
        assertThat(forked.body().path("clones").get(1).path("identity").path("name").asText()).isEqualTo("beta");
        assertThat(forked.body().path("clones").get(0).path("id").asText())
                .isNotEqualTo(forked.body().path("clones").get(1).path("id").asText());
        JsonNode source = daemon.get("/v1/sandboxes/fk-susp").body();
        assertThat(source.path("state").asText()).isEqualTo("SUSPENDED");
        assertThat(source.path("snapshotIds")).as("no new snapshot").hasSize(1);
    }

    @Test
    void aFailingCloneIsReportedWithItsCauseAndTheOthersRun() throws Exception {
        daemon.createOk(daemon.spec("fk-part", "fk-part"));
        daemon.createOk(daemon.spec("part-2", "taken"));
        FailPoints.failOnce("clone.vmRestore");

        var forked = daemon.post("/v1/sandboxes/fk-part/fork", "{\"count\": 4, \"namePrefix\": \"part\"}");
        assertThat(forked.status()).as(forked.body().toString()).isEqualTo(200);
        assertThat(forked.body().path("succeeded").asInt()).isEqualTo(2);
        assertThat(forked.body().path("failed").asInt()).isEqualTo(2);
        int running = 0;
        int failedRestores = 0;
        for (JsonNode clone : forked.body().path("clones")) {
            String id = clone.path("id").asText();
            if (id.equals("part-2")) {
                assertThat(clone.path("error").asText()).contains("already exists");
                assertThat(clone.has("sandbox")).isFalse();
            } else if (clone.path("state").asText().equals("FAILED")) {
                failedRestores++;
                assertThat(clone.path("error").asText()).contains("fail point clone.vmRestore");
                assertThat(daemon.get("/v1/sandboxes/" + id).body().path("state").asText()).isEqualTo("FAILED");
            } else {
                running++;
                assertThat(daemon.get("/v1/sandboxes/" + id).body().path("state").asText()).isEqualTo("RUNNING");
            }
        }
        assertThat(running).isEqualTo(2);
        assertThat(failedRestores).isEqualTo(1);
        assertThat(daemon.get("/v1/sandboxes/part-2").body().path("identity").path("name").asText())
                .as("the sandbox that held the id is untouched").isEqualTo("taken");
    }

    @Test
    void badForkRequestsAreRefusedNamingTheFieldAndNothingIsMade() throws Exception {
        daemon.createOk(daemon.spec("fk-bad", "fk-bad"));
        assertFieldProblem(daemon.post("/v1/sandboxes/fk-bad/fork", "{\"count\": 0}"), "count");
        assertFieldProblem(daemon.post("/v1/sandboxes/fk-bad/fork", "{\"count\": 65}"), "count");
        assertFieldProblem(daemon.post("/v1/sandboxes/fk-bad/fork", "{}"), "count");
        assertFieldProblem(daemon.post("/v1/sandboxes/fk-bad/fork", "{\"count\": 2, \"namePrefix\": \"Bad_Prefix\"}"), "namePrefix");
        assertFieldProblem(daemon.post("/v1/sandboxes/fk-bad/fork",
                "{\"count\": 2, \"identities\": [{\"name\": \"a\", \"namespace\": \"n\"}]}"), "identities");
        assertFieldProblem(daemon.post("/v1/sandboxes/fk-bad/fork", "{\"count\": 1, \"colour\": \"red\"}"), "colour");
        assertThat(daemon.get("/v1/sandboxes/fk-bad").body().path("snapshotIds")).as("no checkpoint taken").isEmpty();
        assertThat(daemon.post("/v1/sandboxes/nobody/fork", "{\"count\": 1}").status()).isEqualTo(404);

        FailPoints.failOnce("create.vmBoot");
        assertThat(daemon.post("/v1/sandboxes", daemon.spec("fk-failed", "fk-failed")).status()).isEqualTo(500);
        var refused = daemon.post("/v1/sandboxes/fk-failed/fork", "{\"count\": 1}");
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.body().path("state").asText()).isEqualTo("FAILED");
        assertThat(refused.body().path("detail").asText()).contains("fork");
    }

    private static void assertFieldProblem(DaemonHarness.Response res, String field) {
        assertThat(res.status()).as(res.body().toString()).isEqualTo(400);
        assertThat(res.contentType()).isEqualTo("application/problem+json");
        assertThat(res.body().path("errors").findValuesAsText("field")).as(res.body().toString()).contains(field);
    }

    private static ObjectNode identity(String name, String namespace) {
        return ApiJson.mapper().createObjectNode().put("name", name).put("namespace", namespace);
    }
}
