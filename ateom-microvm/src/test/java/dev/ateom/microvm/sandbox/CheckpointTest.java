package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.chv.ChvClient;
import dev.ateom.chv.VmState;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.timing.FailPoints;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checkpoint through HTTP against an in-process daemon (CHV stand-in, {@code none} backend): the sandbox keeps
 * running, the snapshot is an ordinary one (verifiable, clonable) holding the durable dir as it was at the pause,
 * system-info sync catches up after the window, and every step made to fail leaves the same VM running with no
 * snapshot.
 */
class CheckpointTest {
    static final List<String> STEPS = List.of("stopSync", "stage", "pause", "snapshot", "archive", "vmResume", "sync",
            "complete", "commit");

    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of());

    @AfterEach
    void disarm() { FailPoints.disarmAll(); }

    @Test
    void aCheckpointedSandboxKeepsRunningAndItsSnapshotHoldsTheDurableDirOfThePause() throws Exception {
        Path secrets = Files.createDirectories(DaemonHarness.hostDirectoryRoot(daemon.root()).resolve("secrets-cp"));
        Files.writeString(secrets.resolve("token"), "v1");
        JsonNode runtime = daemon.createOk(specWithSecrets("cp-1", secrets)).body().path("sandbox").path("runtime");
        Path data = sandboxDir("cp-1").resolve("durable/data");
        Files.writeString(data.resolve("log"), "before the checkpoint");

        var checkpoint = daemon.post("/v1/sandboxes/cp-1/checkpoint", "{}");
        assertThat(checkpoint.status()).as(checkpoint.body().toString()).isEqualTo(200);
        JsonNode sandbox = checkpoint.body().path("sandbox");
        assertThat(sandbox.path("state").asText()).isEqualTo("RUNNING");
        assertThat(sandbox.path("runtime")).as("the same VM, never stopped").isEqualTo(runtime);
        assertThat(sandbox.path("lastOperation").asText()).isEqualTo("checkpoint");
        String snapshotId = checkpoint.body().path("snapshotId").asText();
        assertThat(sandbox.path("latestSnapshotId").asText()).isEqualTo(snapshotId);
        JsonNode timings = checkpoint.body().path("timingsMs");
        assertThat(stepsOf(timings)).containsExactlyElementsOf(STEPS);
        assertThat(timings.path("pauseWindow").asLong())
                .as("the window spans pause through vmResume").isGreaterThanOrEqualTo(timings.path("snapshot").asLong());
        try (ChvClient chv = new ChvClient(Path.of(runtime.path("apiSocket").asText()))) {
            assertThat(chv.info().state()).isEqualTo(VmState.Running);
        }
        assertThat(daemon.get("/v1/snapshots/" + snapshotId + "?verify=true").body().path("verification").path("problems")).isEmpty();

        // sync runs again after the window: a change of the source reaches the volume
        Files.writeString(secrets.resolve("token"), "v2");
        Path volumeToken = sandboxDir("cp-1").resolve("system-info/secrets/token");
        awaitContent(volumeToken, "v2");

        // writes after the checkpoint are not in it: a clone of the checkpoint sees the durable dir of the pause
        Files.writeString(data.resolve("log"), "after the checkpoint");
        ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshotId).put("id", "cp-1-clone");
        clone.putObject("identity").put("name", "cp-1-clone").put("namespace", "tests");
        var cloned = daemon.createOk(clone);
        assertThat(cloned.body().path("sandbox").path("sourceSnapshotId").asText()).isEqualTo(snapshotId);
        assertThat(Files.readString(sandboxDir("cp-1-clone").resolve("durable/data/log"))).isEqualTo("before the checkpoint");
        assertThat(Files.readString(sandboxDir("cp-1-clone").resolve("system-info/secrets/token"))).isEqualTo("v2");

        // and the sandbox suspends and resumes as ever afterwards
        assertThat(daemon.post("/v1/sandboxes/cp-1/suspend", "{}").status()).isEqualTo(200);
        assertThat(daemon.post("/v1/sandboxes/cp-1/resume", "{}").status()).isEqualTo(200);
        assertThat(Files.readString(data.resolve("log"))).isEqualTo("after the checkpoint");
        assertThat(daemon.get("/v1/sandboxes/cp-1").body().path("snapshotIds")).hasSize(2);
        assertThat(daemon.delete("/v1/sandboxes/cp-1-clone").status()).isEqualTo(204);
        assertThat(daemon.delete("/v1/sandboxes/cp-1?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void onlyARunningSandboxIsCheckpointed() throws Exception {
        daemon.createOk(daemon.spec("cp-susp", "cp-susp"));
        assertThat(daemon.post("/v1/sandboxes/cp-susp/suspend", "{}").status()).isEqualTo(200);
        var refused = daemon.post("/v1/sandboxes/cp-susp/checkpoint", "{}");
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.body().path("type").asText()).isEqualTo("https://ateom.dev/problems/invalid-state");
        assertThat(refused.body().path("state").asText()).isEqualTo("SUSPENDED");
        assertThat(daemon.post("/v1/sandboxes/nobody/checkpoint", "{}").status()).isEqualTo(404);
        assertThat(daemon.delete("/v1/sandboxes/cp-susp?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @ParameterizedTest(name = "checkpoint.{0}")
    @ValueSource(strings = {"stopSync", "stage", "pause", "snapshot", "archive", "vmResume", "sync", "complete", "commit"})
    void aFailingStepLeavesTheSameVmRunningWithoutASnapshot(String step) throws Exception {
        String id = "cp-f-" + step.toLowerCase(Locale.ROOT);
        Path secrets = Files.createDirectories(DaemonHarness.hostDirectoryRoot(daemon.root()).resolve("secrets-" + id));
        Files.writeString(secrets.resolve("token"), "v1");
        JsonNode runtime = daemon.createOk(specWithSecrets(id, secrets)).body().path("sandbox").path("runtime");
        FailPoints.failOnce("checkpoint." + step);

        var failed = daemon.post("/v1/sandboxes/" + id + "/checkpoint", "{}");
        assertThat(failed.status()).as(failed.body().toString()).isEqualTo(500);
        assertThat(failed.body().path("type").asText()).isEqualTo("https://ateom.dev/problems/checkpoint-failed");
        assertThat(failed.body().path("state").asText()).isEqualTo("RUNNING");
        assertThat(failed.body().path("detail").asText()).contains("fail point checkpoint." + step);
        JsonNode sandbox = daemon.get("/v1/sandboxes/" + id).body();
        assertThat(sandbox.path("state").asText()).isEqualTo("RUNNING");
        assertThat(sandbox.path("runtime")).as("the same VM").isEqualTo(runtime);
        assertThat(sandbox.path("snapshotIds")).as("nothing committed").isEmpty();
        try (ChvClient chv = new ChvClient(Path.of(runtime.path("apiSocket").asText()))) {
            assertThat(chv.info().state()).as("the VM was resumed").isEqualTo(VmState.Running);
        }
        assertThat(snapshotsOf(id)).as("no snapshot, not even a half-made one").isEmpty();
        Files.writeString(secrets.resolve("token"), "v2");
        awaitContent(sandboxDir(id).resolve("system-info/secrets/token"), "v2");

        var retried = daemon.post("/v1/sandboxes/" + id + "/checkpoint", "{}");
        assertThat(retried.status()).as(retried.body().toString()).isEqualTo(200);
        assertThat(snapshotsOf(id)).hasSize(1);
        assertThat(daemon.delete("/v1/sandboxes/" + id + "?deleteSnapshots=true").status()).isEqualTo(204);
    }

    private static ObjectNode specWithSecrets(String id, Path secrets) throws IOException {
        ObjectNode spec = daemon.spec(id, id);
        ObjectNode volume = ((ArrayNode) spec.path("systemInfo").path("volumes")).addObject();
        volume.put("name", "secrets");
        volume.putArray("sources").addObject().putObject("hostDirectory").put("path", secrets.toString());
        return spec;
    }

    private static List<String> stepsOf(JsonNode timings) {
        List<String> steps = new ArrayList<>();
        timings.fieldNames().forEachRemaining(steps::add);
        steps.remove("total");
        steps.remove("pauseWindow");
        return steps;
    }

    /** Snapshot dirs of the sandbox in the store, hidden (staging) ones included. */
    private static List<String> snapshotsOf(String id) throws IOException {
        try (Stream<Path> snapshots = Files.list(daemon.stateDir().resolve("snapshots"))) {
            return snapshots.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(id + "-") || n.startsWith(".staging-" + id + "-")).toList();
        }
    }

    private static void awaitContent(Path file, String content) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (Files.exists(file) && Files.readString(file).equals(content)) return;
            Thread.sleep(50);
        }
        assertThat(Files.readString(file)).as("%s after the sync caught up", file).isEqualTo(content);
    }

    private static Path sandboxDir(String id) { return daemon.stateDir().resolve("sandboxes").resolve(id); }
}
