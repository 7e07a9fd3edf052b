package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.chv.ChvClient;
import dev.ateom.chv.VmState;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.timing.FailPoints;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every step of create, clone, suspend, resume and delete made to fail (a fail point throws right before it),
 * against an in-process daemon with the CHV stand-in's {@code none} backend. After each failure: the state the
 * decisions promise (suspend: still RUNNING and its VM answering; resume: still SUSPENDED; create and clone:
 * FAILED and cleaned; delete: DELETING, to be finished by another delete), the problem type, no process, socket
 * or directory the failed step left, and a retry that succeeds.
 */
class FailurePathsTest {
    /** virtiofsd starts beside the steps after it up to chvStart: its fail point is where it starts. */
    static final List<String> CREATE = List.of("dirs", "systemInfo", "virtiofsd", "chvStart", "runtimeSave", "vmCreate", "vmBoot",
            "sync");
    static final List<String> CLONE = List.of("dirs", "durable", "systemInfo", "virtiofsd", "chvStart", "rewrite", "runtimeSave",
            "vmRestore", "vmResume", "sync");
    /** After the commit a suspend no longer fails: its teardown only logs what goes wrong. */
    static final List<String> SUSPEND = List.of("stopSync", "pause", "stage", "snapshot", "complete", "archive", "commit");
    /**
     * Timings that are no step (no crash point of their own), some only when there was a wait, which depends on the
     * host's load: a resume's wait for its suspend's teardown, the record saves, a warm jailed VMM's hand-over still
     * running when virtiofsd serve (a loaded fresh-clone run), virtiofsd started ahead still starting, the runtime's
     * save still being fsynced when vm.create or vm.restore is done, a jailed VMM's shares moved into its cgroup.
     */
    static final Set<String> SPANS = Set.of("previousTeardown", "records", "handOver", "virtiofsdAhead", "runtimeSaveWait",
            "jailShares");
    static final List<String> RESUME = List.of("verify", "durable", "systemInfo", "virtiofsd", "chvStart", "rewrite", "runtimeSave",
            "vmRestore", "vmResume", "sync");
    static final List<String> DELETE = List.of("teardown", "leftovers", "runDir", "snapshots", "record");

    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of());
    static String originSnapshot;

    @BeforeAll
    static void start() throws Exception {
        daemon.createOk(daemon.spec("origin", "origin"));
        Files.writeString(daemon.stateDir().resolve("sandboxes/origin/durable/data/shared.txt"), "from origin");
        originSnapshot = daemon.post("/v1/sandboxes/origin/suspend", "{}").body().path("snapshotId").asText();
    }

    /** A failed case must not fail the next ones: whatever it left is deleted (a delete finishes any state). */
    @AfterEach
    void disarmAndDeleteAllButTheOrigin() throws Exception {
        FailPoints.disarmAll();
        daemon.deleteAllSandboxesBut("origin");
    }

    /** Before the extension closes the daemon and checks that no process is left. */
    @AfterAll
    static void deleteTheOrigin() throws Exception {
        assertThat(daemon.delete("/v1/sandboxes/origin?deleteSnapshots=true").status()).isEqualTo(204);
    }

    static Stream<String> failPoints() {
        List<String> points = new ArrayList<>();
        CREATE.forEach(step -> points.add("create." + step));
        CLONE.forEach(step -> points.add("clone." + step));
        SUSPEND.forEach(step -> points.add("suspend." + step));
        RESUME.forEach(step -> points.add("resume." + step));
        DELETE.forEach(step -> points.add("delete." + step));
        return points.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failPoints")
    void aFailingStepLeavesTheSandboxSettledAndCleanAndARetrySucceeds(String point) throws Exception {
        String operation = point.substring(0, point.indexOf('.'));
        String step = point.substring(point.indexOf('.') + 1);
        String id = "f-" + operation.substring(0, 2) + "-" + step.toLowerCase(Locale.ROOT);
        switch (operation) {
            case "create" -> failedCreate(id, point, daemon.spec(id, id));
            case "clone" -> failedCreate(id, point, cloneRequest(id));
            case "suspend" -> failedSuspend(id, point);
            case "resume" -> failedResume(id, point, step);
            case "delete" -> failedDelete(id, point);
            default -> throw new IllegalArgumentException(point);
        }
    }

    /** The list above is every step: what a successful run of each operation times (a suspend's teardown is after its answer). */
    @Test
    void theFailPointsCoverEveryTimedStep() throws Exception {
        var created = daemon.createOk(daemon.spec("f-steps", "f-steps"));
        assertThat(stepsOf(created.body())).containsExactlyElementsOf(CREATE);
        var suspended = daemon.post("/v1/sandboxes/f-steps/suspend", "{}");
        assertThat(stepsOf(suspended.body())).containsExactlyElementsOf(SUSPEND);
        Files.delete(daemon.stateDir().resolve("sandboxes/f-steps/durable.synced")); // so the resume lays the durable dir
        assertThat(stepsOf(daemon.post("/v1/sandboxes/f-steps/resume", "{}").body())).containsExactlyElementsOf(RESUME);
        assertThat(stepsOf(daemon.createOk(cloneRequest("f-steps-clone")).body())).containsExactlyElementsOf(CLONE);
        assertThat(daemon.delete("/v1/sandboxes/f-steps-clone").status()).isEqualTo(204);
        assertThat(daemon.delete("/v1/sandboxes/f-steps?deleteSnapshots=true").status()).isEqualTo(204);
    }

    private void failedCreate(String id, String point, ObjectNode request) throws Exception {
        FailPoints.failOnce(point);
        var failed = daemon.post("/v1/sandboxes", request);
        String operation = point.substring(0, point.indexOf('.'));
        assertProblem(failed, 500, operation + "-failed", id, "FAILED");
        JsonNode sandbox = daemon.get("/v1/sandboxes/" + id).body();
        assertThat(sandbox.path("state").asText()).isEqualTo("FAILED");
        assertThat(sandbox.path("failureReason").asText()).contains("fail point " + point);
        assertThat(sandbox.has("runtime")).as("a FAILED sandbox has no processes").isFalse();
        assertNothingLeftBut(Set.of());
        try (Stream<Path> files = Files.list(sandboxDir(id))) {
            assertThat(files.map(p -> p.getFileName().toString())).as("what a failed %s keeps", operation).containsExactly("sandbox.json");
        }
        assertThat(daemon.runDir().resolve(id)).doesNotExist();

        assertThat(daemon.delete("/v1/sandboxes/" + id).status()).isEqualTo(204);
        var retried = daemon.createOk(request);
        assertThat(retried.body().path("sandbox").path("state").asText()).isEqualTo("RUNNING");
        if (operation.equals("clone")) {
            assertThat(Files.readString(sandboxDir(id).resolve("durable/data/shared.txt"))).isEqualTo("from origin");
        }
        deleteAndCheckGone(id);
    }

    private void failedSuspend(String id, String point) throws Exception {
        JsonNode runtime = daemon.createOk(daemon.spec(id, id)).body().path("sandbox").path("runtime");
        FailPoints.failOnce(point);
        var failed = daemon.post("/v1/sandboxes/" + id + "/suspend", "{}");
        assertProblem(failed, 500, "suspend-failed", id, "RUNNING");
        JsonNode sandbox = daemon.get("/v1/sandboxes/" + id).body();
        assertThat(sandbox.path("state").asText()).isEqualTo("RUNNING");
        assertThat(sandbox.path("runtime")).as("the same VM").isEqualTo(runtime);
        assertThat(sandbox.path("snapshotIds")).as("nothing committed").isEmpty();
        try (ChvClient chv = new ChvClient(Path.of(runtime.path("apiSocket").asText()))) {
            assertThat(chv.info().state()).as("the VM answers and runs").isEqualTo(VmState.Running);
        }
        assertNothingLeftBut(Set.of(id));

        var retried = daemon.post("/v1/sandboxes/" + id + "/suspend", "{}");
        assertThat(retried.status()).as(retried.body().toString()).isEqualTo(200);
        assertThat(retried.body().path("sandbox").path("state").asText()).isEqualTo("SUSPENDED");
        assertThat(daemon.get("/v1/snapshots/" + retried.body().path("snapshotId").asText() + "?verify=true").body()
                .path("verification").path("problems")).isEmpty();
        deleteAndCheckGone(id);
    }

    private void failedResume(String id, String point, String step) throws Exception {
        daemon.createOk(daemon.spec(id, id));
        Files.writeString(sandboxDir(id).resolve("durable/data/notes.txt"), "before suspend");
        String snapshot = daemon.post("/v1/sandboxes/" + id + "/suspend", "{}").body().path("snapshotId").asText();
        if (step.equals("durable")) Files.delete(sandboxDir(id).resolve("durable.synced")); // the step runs only then
        FailPoints.failOnce(point);
        var failed = daemon.post("/v1/sandboxes/" + id + "/resume", "{}");
        assertProblem(failed, 500, "resume-failed", id, "SUSPENDED");
        JsonNode sandbox = daemon.get("/v1/sandboxes/" + id).body();
        assertThat(sandbox.path("state").asText()).isEqualTo("SUSPENDED");
        assertThat(sandbox.path("latestSnapshotId").asText()).isEqualTo(snapshot);
        assertThat(sandbox.has("runtime")).isFalse();
        assertNothingLeftBut(Set.of());

        var retried = daemon.post("/v1/sandboxes/" + id + "/resume", "{}");
        assertThat(retried.status()).as(retried.body().toString()).isEqualTo(200);
        assertThat(retried.body().path("sandbox").path("state").asText()).isEqualTo("RUNNING");
        assertThat(Files.readString(sandboxDir(id).resolve("durable/data/notes.txt"))).isEqualTo("before suspend");
        deleteAndCheckGone(id);
    }

    private void failedDelete(String id, String point) throws Exception {
        daemon.createOk(daemon.spec(id, id));
        String snapshot = daemon.post("/v1/sandboxes/" + id + "/suspend", "{}").body().path("snapshotId").asText();
        assertThat(daemon.post("/v1/sandboxes/" + id + "/resume", "{}").status()).isEqualTo(200);
        FailPoints.failOnce(point);
        var failed = daemon.delete("/v1/sandboxes/" + id + "?deleteSnapshots=true");
        assertProblem(failed, 500, "delete-failed", id, "DELETING");
        assertThat(daemon.get("/v1/sandboxes/" + id).body().path("state").asText()).isEqualTo("DELETING");

        // the retry does not repeat deleteSnapshots: the first request's is finished all the same
        assertThat(daemon.delete("/v1/sandboxes/" + id).status()).isEqualTo(204);
        assertThat(daemon.get("/v1/sandboxes/" + id).status()).isEqualTo(404);
        assertThat(daemon.get("/v1/snapshots/" + snapshot).status()).isEqualTo(404);
        assertGone(id);
    }

    private static ObjectNode cloneRequest(String id) {
        ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", originSnapshot).put("id", id);
        clone.putObject("identity").put("name", id).put("namespace", "tests");
        return clone;
    }

    private static List<String> stepsOf(JsonNode result) {
        assertThat(result.has("timingsMs")).as(result.toString()).isTrue();
        List<String> steps = new ArrayList<>();
        result.path("timingsMs").fieldNames().forEachRemaining(steps::add);
        steps.remove("total");
        steps.removeAll(SPANS);
        return steps;
    }

    private static void assertProblem(DaemonHarness.Response res, int status, String type, String id, String state) {
        assertThat(res.status()).as(res.body().toString()).isEqualTo(status);
        assertThat(res.contentType()).isEqualTo("application/problem+json");
        assertThat(res.body().path("type").asText()).isEqualTo("https://ateom.dev/problems/" + type);
        assertThat(res.body().path("sandboxId").asText()).isEqualTo(id);
        assertThat(res.body().path("state").asText()).isEqualTo(state);
        assertThat(res.body().path("detail").asText()).contains("fail point");
    }

    private static void deleteAndCheckGone(String id) throws Exception {
        assertThat(daemon.delete("/v1/sandboxes/" + id + "?deleteSnapshots=true").status()).isEqualTo(204);
        assertGone(id);
    }

    private static void assertGone(String id) throws Exception {
        assertThat(sandboxDir(id)).doesNotExist();
        assertThat(daemon.runDir().resolve(id)).doesNotExist();
        assertNothingLeftBut(Set.of());
    }

    /**
     * No process but those of the running sandboxes named, no socket in the run dir of any other sandbox, no
     * restore dir of a sandbox that does not run, no half-made snapshot, no mount under the daemon's dirs (a jailed
     * VMM's mounts live in its own namespace and go with it).
     */
    private static void assertNothingLeftBut(Set<String> running) throws Exception {
        daemon.awaitTeardowns();
        daemon.awaitPoolFull();
        Set<Long> owned = new HashSet<>();
        for (String id : running) {
            JsonNode runtime = sandbox(id).path("runtime");
            owned.add(runtime.path("chvPid").asLong());
            runtime.path("shares").forEach(share -> owned.add(share.path("pid").asLong()));
        }
        assertThat(TestTools.leakedChildrenBesides(owned)).as("processes of no running sandbox").isEmpty();
        try (Stream<Path> runDirs = Files.list(daemon.runDir())) {
            for (Path runDir : runDirs.filter(d -> !running.contains(d.getFileName().toString()))
                    .filter(d -> !d.getFileName().toString().equals(".vmm-pool")).toList()) {
                try (Stream<Path> files = Files.walk(runDir)) {
                    assertThat(files.filter(FailurePathsTest::isSocket)).as("sockets under %s", runDir).isEmpty();
                }
            }
        }
        try (Stream<Path> sandboxDirs = Files.list(daemon.stateDir().resolve("sandboxes"))) {
            assertThat(sandboxDirs.filter(d -> !running.contains(d.getFileName().toString())).map(d -> d.resolve("restore")))
                    .as("restore dirs of sandboxes that do not run").noneMatch(Files::exists);
        }
        try (Stream<Path> snapshots = Files.list(daemon.stateDir().resolve("snapshots"))) {
            assertThat(snapshots.map(p -> p.getFileName().toString())).as("half-made snapshots").noneMatch(n -> n.startsWith("."));
        }
        assertThat(Files.readAllLines(Path.of("/proc/self/mountinfo"))).as("mounts under the daemon's dirs")
                .noneMatch(line -> line.contains(daemon.stateDir().toString()) || line.contains(daemon.runDir().toString()));
    }

    private static JsonNode sandbox(String id) {
        try {
            return daemon.get("/v1/sandboxes/" + id).body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path sandboxDir(String id) { return daemon.stateDir().resolve("sandboxes").resolve(id); }

    private static boolean isSocket(Path path) {
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return (mode & 0170000) == 0140000;
        } catch (IOException e) {
            return false;
        }
    }
}
