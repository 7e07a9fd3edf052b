package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.chv.ChvClient;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.sandbox.operation.Transitions;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole lifecycle through HTTP against an in-process daemon, with the CHV stand-in (a separate process,
 * {@code none} backend: real vhost-user connections to real virtiofsd, no guest) and real virtiofsd.
 */
class SandboxLifecycleTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of());

    @Test
    void createSuspendResumeTwiceThenDelete() throws Exception {
        var created = daemon.post("/v1/sandboxes", daemon.spec("life-1", "alice"));
        assertThat(created.status()).as(created.body().toString()).isEqualTo(201);
        JsonNode sandbox = created.body().path("sandbox");
        assertThat(sandbox.path("state").asText()).isEqualTo("RUNNING");
        assertThat(created.body().path("timingsMs").has("vmBoot")).isTrue();
        assertThat(sandbox.path("runtime").path("shares")).hasSize(3);
        for (JsonNode share : sandbox.path("runtime").path("shares")) {
            assertThat(ProcessHandle.of(share.path("pid").asLong())).as("virtiofsd " + share).isPresent();
        }
        long chvPid = sandbox.path("runtime").path("chvPid").asLong();
        assertThat(ProcessHandle.of(chvPid).map(ProcessHandle::isAlive)).hasValue(true);
        String chvVersion;
        try (ChvClient chv = new ChvClient(Path.of(sandbox.path("runtime").path("apiSocket").asText()))) {
            chvVersion = chv.ping().version();
        }
        Path durable = daemon.stateDir().resolve("sandboxes/life-1/durable/data");
        Files.writeString(durable.resolve("notes.txt"), "written before suspend");
        Path identityName = daemon.stateDir().resolve("sandboxes/life-1/system-info/identity/name");
        assertThat(Files.readString(identityName)).isEqualTo("alice");

        String firstSnapshot = null;
        for (int cycle = 1; cycle <= 2; cycle++) {
            var suspended = daemon.post("/v1/sandboxes/life-1/suspend", "{}");
            assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
            assertThat(suspended.body().path("sandbox").path("state").asText()).isEqualTo("SUSPENDED");
            String snapshotId = suspended.body().path("snapshotId").asText();
            if (firstSnapshot == null) firstSnapshot = snapshotId;
            assertThat(suspended.body().path("timingsMs").fieldNames()).toIterable()
                    .contains("pause", "snapshot", "archive", "commit").doesNotContain("teardown");
            Path manifest = daemon.stateDir().resolve("snapshots").resolve(snapshotId).resolve("manifest.json");
            // the version the VMM answered when it became ready (the suspend does not ask again), the one it answers now
            assertThat(ApiJson.mapper().readTree(manifest.toFile()).path("chvVersion").asText()).isEqualTo(chvVersion);
            // the answer came at the commit; the processes stop after it, and the record names them until they have
            daemon.awaitTeardowns();
            assertThat(ProcessHandle.of(chvPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            daemon.awaitPoolFull();
            assertThat(TestTools.leakedChildren()).as("processes of a suspended sandbox").isEmpty();

            var resumed = daemon.post("/v1/sandboxes/life-1/resume", "{}");
            assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
            JsonNode after = resumed.body().path("sandbox");
            assertThat(after.path("state").asText()).isEqualTo("RUNNING");
            assertThat(after.path("runtime").path("epoch").asInt()).isEqualTo(cycle + 1);
            assertThat(resumed.body().path("timingsMs").fieldNames()).toIterable().contains("vmRestore", "vmResume");
            chvPid = after.path("runtime").path("chvPid").asLong();
            assertThat(Files.readString(durable.resolve("notes.txt"))).isEqualTo("written before suspend");
            assertThat(Files.readString(identityName)).isEqualTo("alice");
            // the earlier epochs' processes are gone, and their dirs with them: removed beside the resume, before its answer
            try (Stream<Path> epochs = Files.list(daemon.runDir().resolve("life-1"))) {
                assertThat(epochs.map(p -> p.getFileName().toString())).containsExactly("e" + (cycle + 1));
            }
        }
        var listed = daemon.get("/v1/sandboxes/life-1");
        assertThat(listed.body().path("snapshotIds")).hasSize(2);

        assertThat(daemon.delete("/v1/sandboxes/life-1").status()).isEqualTo(204);
        assertThat(daemon.get("/v1/sandboxes/life-1").status()).isEqualTo(404);
        assertThat(daemon.stateDir().resolve("sandboxes/life-1")).doesNotExist();
        assertThat(daemon.runDir().resolve("life-1")).doesNotExist();
        assertThat(daemon.get("/v1/snapshots/" + firstSnapshot).status()).as("snapshots are kept").isEqualTo(200);
    }

    @Test
    void atDebugTheLogHasWhenEachStepOfAResumeRan() throws Exception {
        daemon.createOk(daemon.spec("traced", "traced"));
        assertThat(daemon.post("/v1/sandboxes/traced/suspend", "{}").status()).isEqualTo(200);
        List<String> debug;
        try (LoggedMessages logged = LoggedMessages.of(Transitions.class, Level.FINE)) { // --log-level DEBUG, for this logger only
            assertThat(daemon.post("/v1/sandboxes/traced/resume", "{}").status()).isEqualTo(200);
            debug = logged.messages().stream().filter(m -> m.contains("its steps in µs")).toList();
        }
        assertThat(debug).as("the resume's trace").singleElement().satisfies(line -> assertThat(line)
                .startsWith("resume of sandbox traced, its steps in µs from its start")
                .containsPattern(" systemInfo~@\\d+\\+\\d+ ").containsPattern(" vmRestore@\\d+\\+\\d+ ").contains(" vmResume@"));
        assertThat(daemon.delete("/v1/sandboxes/traced").status()).isEqualTo(204);
    }

    @Test
    void aDurableDirThatMayHaveRunAheadOfTheSnapshotIsLaidAnewFromItsArchive() throws Exception {
        daemon.createOk(daemon.spec("rewind", "rewind"));
        Path data = daemon.stateDir().resolve("sandboxes/rewind/durable/data");
        Files.writeString(data.resolve("db.log"), "committed before suspend");
        assertThat(daemon.post("/v1/sandboxes/rewind/suspend", "{}").status()).isEqualTo(200);
        Path marker = daemon.stateDir().resolve("sandboxes/rewind/durable.synced");
        assertThat(marker).exists();

        // what a resume that let the guest run and then failed (or crashed) leaves: writes after the snapshot
        Files.delete(marker);
        Files.writeString(data.resolve("db.log"), "written by a guest whose memory was rolled back");
        Files.writeString(data.resolve("orphan"), "x");

        var resumed = daemon.post("/v1/sandboxes/rewind/resume", "{}");
        assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
        assertThat(resumed.body().path("timingsMs").has("durable")).isTrue();
        assertThat(Files.readString(data.resolve("db.log"))).isEqualTo("committed before suspend");
        assertThat(data.resolve("orphan")).doesNotExist();
        assertThat(marker).as("cleared while the guest runs").doesNotExist();

        assertThat(daemon.post("/v1/sandboxes/rewind/suspend", "{}").status()).isEqualTo(200);
        var again = daemon.post("/v1/sandboxes/rewind/resume", "{}");
        assertThat(again.body().path("timingsMs").has("durable")).as("in sync: reused, not extracted").isFalse();
        assertThat(daemon.delete("/v1/sandboxes/rewind?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void aMarkerFromAnEarlierBootIsNotTrustedSoAResumeAfterAHostCrashLaysTheDurableDirAnew() throws Exception {
        daemon.createOk(daemon.spec("rebooted", "rebooted"));
        Path data = daemon.stateDir().resolve("sandboxes/rebooted/durable/data");
        Files.writeString(data.resolve("db.log"), "written before suspend, never fsynced");
        var suspended = daemon.post("/v1/sandboxes/rebooted/suspend", "{}");
        assertThat(suspended.status()).isEqualTo(200);
        String snapshotId = suspended.body().path("snapshotId").asText();
        Path marker = daemon.stateDir().resolve("sandboxes/rebooted/durable.synced");
        assertThat(Files.readString(marker)).startsWith(snapshotId + " ");

        // what a host crash can leave: the guest's last writes lost from the page cache, the marker (of that boot) kept
        Files.delete(data.resolve("db.log"));
        Files.writeString(marker, snapshotId + " 00000000-0000-0000-0000-000000000000\n");

        var resumed = daemon.post("/v1/sandboxes/rebooted/resume", "{}");
        assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
        assertThat(resumed.body().path("timingsMs").has("durable")).as("laid from the archive").isTrue();
        assertThat(Files.readString(data.resolve("db.log"))).isEqualTo("written before suspend, never fsynced");
        assertThat(daemon.delete("/v1/sandboxes/rebooted?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void onDemandRestoresKeepSnapshotsCompleteAndSparse() throws Exception {
        ObjectNode spec = daemon.spec("lazy", "lazy");
        spec.put("memoryRestoreMode", "OnDemand");
        daemon.createOk(spec);
        String first = daemon.post("/v1/sandboxes/lazy/suspend", "{}").body().path("snapshotId").asText();
        assertThat(daemon.post("/v1/sandboxes/lazy/resume", "{}").status()).isEqualTo(200);
        var second = daemon.post("/v1/sandboxes/lazy/suspend", "{}");
        assertThat(second.status()).as(second.body().toString()).isEqualTo(200);
        String snapshot = second.body().path("snapshotId").asText();
        assertThat(snapshot).isNotEqualTo(first);
        JsonNode inspected = daemon.get("/v1/snapshots/" + snapshot + "?verify=true").body();
        assertThat(inspected.path("verification").path("problems")).isEmpty();
        JsonNode memory = inspected.path("summary").path("manifest").path("memoryRanges");
        assertThat(memory.path("layout").asText()).isEqualTo("sparse");
        assertThat(memory.path("allocatedBytes").asLong()).isLessThan(memory.path("apparentBytes").asLong());
        // the first snapshot can go: the second does not depend on it
        assertThat(daemon.delete("/v1/snapshots/" + first).status()).isEqualTo(204);
        assertThat(daemon.post("/v1/sandboxes/lazy/resume", "{}").status()).isEqualTo(200);
        assertThat(daemon.delete("/v1/sandboxes/lazy?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void fiveClonesOfOneSnapshotEachGetTheirOwnIdentity() throws Exception {
        daemon.createOk(daemon.spec("origin", "origin"));
        Files.writeString(daemon.stateDir().resolve("sandboxes/origin/durable/data/shared.txt"), "from origin");
        String snapshot = daemon.post("/v1/sandboxes/origin/suspend", "{}").body().path("snapshotId").asText();

        Set<String> uids = new HashSet<>();
        for (int i = 1; i <= 5; i++) {
            ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshot).put("id", "clone-" + i);
            clone.putObject("identity").put("name", "clone-" + i).put("namespace", "tests");
            var res = daemon.post("/v1/sandboxes", clone);
            assertThat(res.status()).as(res.body().toString()).isEqualTo(201);
            JsonNode sandbox = res.body().path("sandbox");
            assertThat(sandbox.path("sourceSnapshotId").asText()).isEqualTo(snapshot);
            uids.add(sandbox.path("identity").path("uid").asText());
            Path sysinfo = daemon.stateDir().resolve("sandboxes/clone-" + i + "/system-info/identity");
            assertThat(Files.readString(sysinfo.resolve("name"))).isEqualTo("clone-" + i);
            assertThat(Files.readString(sysinfo.resolve("uid"))).isEqualTo(sandbox.path("identity").path("uid").asText());
            assertThat(Files.readString(daemon.stateDir().resolve("sandboxes/clone-" + i + "/durable/data/shared.txt")))
                    .isEqualTo("from origin");
        }
        assertThat(uids).hasSize(5);
        for (int i = 1; i <= 5; i++) assertThat(daemon.delete("/v1/sandboxes/clone-" + i).status()).isEqualTo(204);
        assertThat(daemon.delete("/v1/sandboxes/origin?deleteSnapshots=true").status()).isEqualTo(204);
        assertThat(daemon.get("/v1/snapshots/" + snapshot).status()).isEqualTo(404);
    }

    @Test
    void snapshotsCanBeListedInspectedVerifiedAndAreProtectedWhileNeeded() throws Exception {
        daemon.createOk(daemon.spec("snapper", "snapper"));
        String snapshot = daemon.post("/v1/sandboxes/snapper/suspend", "{}").body().path("snapshotId").asText();

        JsonNode items = daemon.get("/v1/snapshots").body().path("items");
        assertThat(items.findValuesAsText("id")).contains(snapshot);
        var inspected = daemon.get("/v1/snapshots/" + snapshot + "?verify=true");
        assertThat(inspected.status()).as(inspected.body().toString()).isEqualTo(200);
        assertThat(inspected.body().path("verification").path("problems")).isEmpty();
        assertThat(inspected.body().path("systemInfoCheck").path("findings")).isEmpty();
        List<String> tags = inspected.body().path("summary").path("shares").findValuesAsText("tag");
        assertThat(tags).containsExactlyInAnyOrder("ateRootfs", "ateDurable", "ateSystemInfo");

        var refused = daemon.delete("/v1/snapshots/" + snapshot);
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.contentType()).isEqualTo("application/problem+json");
        assertThat(daemon.post("/v1/sandboxes/snapper/resume", "{}").status()).isEqualTo(200);
        assertThat(daemon.delete("/v1/snapshots/" + snapshot).status()).as("no longer needed to resume").isEqualTo(204);
        assertThat(daemon.delete("/v1/sandboxes/snapper").status()).isEqualTo(204);
    }

    @Test
    void illegalTransitionsAnswer409WithTheState() throws Exception {
        daemon.createOk(daemon.spec("strict", "strict"));
        var resumeRunning = daemon.post("/v1/sandboxes/strict/resume", "{}");
        assertThat(resumeRunning.status()).isEqualTo(409);
        assertThat(resumeRunning.body().path("state").asText()).isEqualTo("RUNNING");
        assertThat(resumeRunning.body().path("sandboxId").asText()).isEqualTo("strict");
        var duplicate = daemon.post("/v1/sandboxes", daemon.spec("strict", "strict"));
        assertThat(duplicate.status()).isEqualTo(409);
        assertThat(daemon.post("/v1/sandboxes/strict/suspend", "{}").status()).isEqualTo(200);
        var suspendSuspended = daemon.post("/v1/sandboxes/strict/suspend", "{}");
        assertThat(suspendSuspended.status()).isEqualTo(409);
        assertThat(suspendSuspended.body().path("state").asText()).isEqualTo("SUSPENDED");
        assertThat(daemon.delete("/v1/sandboxes/strict?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void unknownSandboxAndSnapshotAre404() throws Exception {
        for (var res : List.of(daemon.get("/v1/sandboxes/nope"), daemon.post("/v1/sandboxes/nope/suspend", "{}"),
                daemon.post("/v1/sandboxes/nope/resume", "{}"), daemon.delete("/v1/sandboxes/nope"),
                daemon.get("/v1/snapshots/nope"), daemon.delete("/v1/snapshots/nope"))) {
            assertThat(res.status()).isEqualTo(404);
            assertThat(res.contentType()).isEqualTo("application/problem+json");
        }
        ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", "no-such-snapshot");
        clone.putObject("identity").put("name", "x").put("namespace", "tests");
        assertThat(daemon.post("/v1/sandboxes", clone).status()).isEqualTo(404);
    }

    @Test
    void operationsAreCountedAndTimedByOutcomeAndSandboxesGaugedByState() throws Exception {
        daemon.createOk(daemon.spec("metered", "metered"));
        assertThat(daemon.post("/v1/sandboxes/metered/resume", "{}").status()).isEqualTo(409);
        HttpResponse<String> scrape = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(daemon.uri("/metrics")).header("Authorization", "Bearer " + daemon.token()).build(),
                HttpResponse.BodyHandlers.ofString());
        String metrics = scrape.body();
        assertThat(metrics).containsPattern("ateom_operations_total\\{operation=\"create\",outcome=\"success\"} [1-9]");
        assertThat(metrics).containsPattern("ateom_operation_duration_seconds_count\\{operation=\"create\",outcome=\"success\"} [1-9]");
        assertThat(metrics).containsPattern("ateom_sandboxes\\{state=\"RUNNING\"} [1-9]");
        assertThat(metrics).contains("ateom_sandboxes{state=\"FAILED\"}");
        assertThat(daemon.delete("/v1/sandboxes/metered").status()).isEqualTo(204);
    }

    @Test
    void everyRunDirAndProcessIsGoneAfterDeletes() throws Exception {
        daemon.createOk(daemon.spec("tidy", "tidy"));
        assertThat(daemon.delete("/v1/sandboxes/tidy").status()).isEqualTo(204);
        try (Stream<Path> left = Files.list(daemon.runDir())) {
            assertThat(left.map(Path::getFileName).map(Path::toString)).doesNotContain("tidy");
        }
    }
}
