package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static dev.ateom.microvm.sandbox.SnapshotStoreDaemonTest.awaitPushed;
import static dev.ateom.microvm.sandbox.SnapshotStoreDaemonTest.createWriteAndSuspend;
import static dev.ateom.microvm.sandbox.SnapshotStoreDaemonTest.randomHex;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Moving a sandbox between hosts with leases enforced: three in-process daemons (the stand-in's {@code none}
 * backend) reach s3proxy through the conditional-put proxy ({@link StoreHosts.Front#LEASE_PROXY}), which makes
 * {@code If-None-Match: *} atomic, so each daemon's start probe finds conditional writes HONOURED and adopting takes
 * {@code leases/<sandbox-id>}.
 */
class AdoptLeaseDaemonTest {
    @TempDir static Path dir;
    static StoreHosts store;
    static DaemonHarness hostA;
    static DaemonHarness hostB;
    static DaemonHarness hostC;

    @BeforeAll
    static void start() throws Exception {
        store = StoreHosts.start(dir, "leases-test", StoreHosts.Front.LEASE_PROXY);
        Path imagesOfA = Files.createDirectories(DaemonHarness.imageDir(store.root("host-a")));
        hostA = store.host("host-a", flags("host-a", true, null));
        hostB = store.host("host-b", flags("host-b", false, imagesOfA));
        hostC = store.host("host-c", flags("host-c", false, imagesOfA));
    }

    @AfterAll
    static void stop() {
        if (store != null) store.close();
    }

    /** Store flags through the proxy; {@code imageRoot}: the guest images of host A, which every host of a fleet has. */
    private static Map<ConfigOption, String> flags(String hostId, boolean pushOnSuspend, Path imageRoot) {
        Map<ConfigOption, String> flags = store.flags(hostId, pushOnSuspend);
        flags.put(ConfigOption.VMM_POOL, "0"); // each host would keep idle stand-ins; this machine runs three hosts at once
        if (imageRoot != null) flags.put(ConfigOption.IMAGE_ROOTS, imageRoot.toString());
        return flags;
    }

    @Test
    void theProbeFindsLeasesSafeThroughTheProxy() throws Exception {
        JsonNode store = hostB.get("/v1/store").body();
        assertThat(store.path("usable").asBoolean()).as(store.toString()).isTrue();
        assertThat(store.path("leases").asText()).isEqualTo("on");
        assertThat(store.path("conditionalWrites").path("result").asText()).as(store.toString()).isEqualTo("HONOURED");
    }

    @Test
    void anAdoptedSandboxIsLeasedToItsNewHostUntilDeletedThere() throws Exception {
        String notes = "moves to host B " + randomHex();
        String snapshotId = createWriteAndSuspend(hostA, "leased-1", notes);
        awaitPushed(hostA, snapshotId);
        store.awaitNoLease("leased-1"); // A held it while the sandbox ran there; its suspend gives it back after the answer
        ObjectNode adopt = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshotId).put("adopt", true);

        var adopted = hostB.post("/v1/sandboxes", adopt);
        assertThat(adopted.status()).as(adopted.body().toString()).isEqualTo(201);
        assertThat(adopted.body().path("sandbox").path("state").asText()).isEqualTo("RUNNING");
        assertThat(Files.readString(hostB.stateDir().resolve("sandboxes/leased-1/durable/data/notes.txt"))).isEqualTo(notes);
        assertThat(leaseHolder("leased-1")).isEqualTo("host-b");

        // the host it came from may not run it while B holds it, and says who does; nothing of it runs on A
        var resumeOnA = hostA.post("/v1/sandboxes/leased-1/resume", "{}");
        assertThat(resumeOnA.status()).as(resumeOnA.body().toString()).isEqualTo(409);
        assertThat(resumeOnA.contentType()).startsWith("application/problem+json");
        assertThat(resumeOnA.body().path("type").asText()).endsWith("lease-held");
        assertThat(resumeOnA.body().path("detail").asText()).contains("host-b");
        assertThat(hostA.get("/v1/sandboxes/leased-1").body().path("state").asText()).isEqualTo("SUSPENDED");

        // nor may a third host adopt it; what that adopt pulled goes again
        var adoptOnC = hostC.post("/v1/sandboxes", adopt);
        assertThat(adoptOnC.status()).as(adoptOnC.body().toString()).isEqualTo(409);
        assertThat(adoptOnC.body().path("type").asText()).endsWith("lease-held");
        assertThat(adoptOnC.body().path("detail").asText()).contains("host-b");
        assertThat(hostC.get("/v1/sandboxes/leased-1").status()).isEqualTo(404);
        assertThat(hostC.stateDir().resolve("sandboxes/leased-1")).doesNotExist();
        assertThat(hostC.stateDir().resolve("snapshots").resolve(snapshotId)).as("the snapshot the refused adopt pulled").doesNotExist();
        assertThat(leaseHolder("leased-1")).isEqualTo("host-b");

        // deleting it on B gives the lease back: A may run its own copy again (from A's last snapshot, not B's state),
        // and holds the lease while it does
        assertThat(hostB.delete("/v1/sandboxes/leased-1?deleteSnapshots=true").status()).isEqualTo(204);
        assertThat(storedObject("leases/leased-1")).doesNotExist();
        var resumedOnA = hostA.post("/v1/sandboxes/leased-1/resume", "{}");
        assertThat(resumedOnA.status()).as(resumedOnA.body().toString()).isEqualTo(200);
        assertThat(resumedOnA.body().path("sandbox").path("state").asText()).isEqualTo("RUNNING");
        assertThat(leaseHolder("leased-1")).as("a resume takes the lease").isEqualTo("host-a");
        assertThat(hostA.delete("/v1/sandboxes/leased-1?deleteSnapshots=true").status()).isEqualTo(204);
        assertThat(storedObject("leases/leased-1")).as("delete gives it back").doesNotExist();
    }

    @Test
    void anAdoptOfASnapshotAlreadyHereKeepsItWhenRefused() throws Exception {
        String snapshotId = createWriteAndSuspend(hostA, "leased-2", "stays on A " + randomHex());
        awaitPushed(hostA, snapshotId);
        store.awaitNoLease("leased-2");
        ObjectNode adopt = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshotId).put("adopt", true);
        // on A the sandbox exists: refused, and A's own snapshot (local before the request) is not touched
        var again = hostA.post("/v1/sandboxes", adopt);
        assertThat(again.status()).as(again.body().toString()).isEqualTo(409);
        assertThat(again.body().path("type").asText()).endsWith("already-exists");
        assertThat(hostA.stateDir().resolve("snapshots").resolve(snapshotId).resolve("manifest.json")).exists();
        assertThat(storedObject("leases/leased-2")).doesNotExist();
        // deleting the origin's copy after a move leaves the new host's lease alone
        assertThat(hostB.post("/v1/sandboxes", adopt).status()).isEqualTo(201);
        assertThat(hostA.delete("/v1/sandboxes/leased-2?deleteSnapshots=true").status()).isEqualTo(204);
        assertThat(leaseHolder("leased-2")).isEqualTo("host-b");
        assertThat(hostB.delete("/v1/sandboxes/leased-2?deleteSnapshots=true").status()).isEqualTo(204);
        assertThat(storedObject("leases/leased-2")).doesNotExist();
    }

    @Test
    void aSandboxRunningOnItsFirstHostHoldsItsLeaseSoNoOtherHostRunsIt() throws Exception {
        String snapshotId = createWriteAndSuspend(hostA, "leased-3", "runs on A " + randomHex());
        awaitPushed(hostA, snapshotId);
        store.awaitNoLease("leased-3");
        var resumed = hostA.post("/v1/sandboxes/leased-3/resume", "{}");
        assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
        assertThat(resumed.body().path("timingsMs").has("lease")).as("the lease is awaited as a step of its own").isTrue();
        assertThat(leaseHolder("leased-3")).isEqualTo("host-a");

        // A runs its copy again: B may not adopt the snapshot A pushed before, and nothing of that adopt stays on B
        ObjectNode adopt = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshotId).put("adopt", true);
        var adoptOnB = hostB.post("/v1/sandboxes", adopt);
        assertThat(adoptOnB.status()).as(adoptOnB.body().toString()).isEqualTo(409);
        assertThat(adoptOnB.contentType()).startsWith("application/problem+json");
        assertThat(adoptOnB.body().path("type").asText()).endsWith("lease-held");
        assertThat(adoptOnB.body().path("detail").asText()).contains("host-a");
        assertThat(hostB.get("/v1/sandboxes/leased-3").status()).isEqualTo(404);
        assertThat(hostB.stateDir().resolve("sandboxes/leased-3")).doesNotExist();
        assertThat(hostB.stateDir().resolve("snapshots").resolve(snapshotId)).doesNotExist();

        // nor may B create a sandbox of that id: refused once the VM would be created, nothing of it is left
        var createOnB = hostB.post("/v1/sandboxes", hostA.spec("leased-3", "leased-3"));
        assertThat(createOnB.status()).as(createOnB.body().toString()).isEqualTo(409);
        assertThat(createOnB.body().path("type").asText()).endsWith("lease-held");
        assertThat(createOnB.body().path("detail").asText()).contains("host-a");
        assertThat(hostB.get("/v1/sandboxes/leased-3").status()).isEqualTo(404);
        assertThat(hostB.stateDir().resolve("sandboxes/leased-3")).doesNotExist();
        assertThat(hostB.runDir().resolve("leased-3")).as("its processes stopped, its run dir removed").doesNotExist();
        assertThat(leaseHolder("leased-3")).isEqualTo("host-a");
        // a clone is a sandbox of its own: it holds its own lease while it runs, given back on delete
        ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshotId).put("id", "leased-3-clone");
        clone.putObject("identity").put("name", "leased-3-clone").put("namespace", "tests");
        var cloned = hostB.post("/v1/sandboxes", clone);
        assertThat(cloned.status()).as(cloned.body().toString()).isEqualTo(201);
        assertThat(leaseHolder("leased-3-clone")).isEqualTo("host-b");
        assertThat(hostB.delete("/v1/sandboxes/leased-3-clone?deleteSnapshots=true").status()).isEqualTo(204);
        assertThat(storedObject("leases/leased-3-clone")).doesNotExist();

        // A suspends: the lease goes (after the answer), and B may take the sandbox over from A's newest snapshot
        var suspended = hostA.post("/v1/sandboxes/leased-3/suspend", "{}");
        assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
        String newest = suspended.body().path("snapshotId").asText();
        awaitPushed(hostA, newest);
        store.awaitNoLease("leased-3");
        var adopted = hostB.post("/v1/sandboxes", ApiJson.mapper().createObjectNode().put("fromSnapshot", newest).put("adopt", true));
        assertThat(adopted.status()).as(adopted.body().toString()).isEqualTo(201);
        assertThat(leaseHolder("leased-3")).isEqualTo("host-b");
        assertThat(hostB.delete("/v1/sandboxes/leased-3?deleteSnapshots=true").status()).isEqualTo(204);
        assertThat(hostA.delete("/v1/sandboxes/leased-3?deleteSnapshots=true").status()).isEqualTo(204);
        assertThat(storedObject("leases/leased-3")).doesNotExist();
    }

    @Test
    void aDaemonRestartKeepsTheLeaseOfASandboxThatKeptRunning() throws Exception {
        Map<ConfigOption, String> flags = flags("host-d", false, null);
        flags.put(ConfigOption.CHILDREN_DIE_WITH_DAEMON, "false");
        Path root = store.root("host-d");
        try (DaemonHarness first = new DaemonHarness(root, flags)) {
            first.createOk(first.spec("leased-4", "leased-4"));
            assertThat(leaseHolder("leased-4")).isEqualTo("host-d");
            assertThat(first.get("/v1/sandboxes/leased-4").body().has("inStore")).as("never pushed").isFalse();
            var checkpoint = first.post("/v1/sandboxes/leased-4/checkpoint", "{}");
            assertThat(checkpoint.status()).as(checkpoint.body().toString()).isEqualTo(200);
            assertThat(first.post("/v1/snapshots/" + checkpoint.body().path("snapshotId").asText() + "/push", "").status()).isEqualTo(202);
            assertThat(first.get("/v1/sandboxes/leased-4").body().path("inStore").asBoolean()).as("marked before the push").isTrue();
            awaitPushed(first, checkpoint.body().path("snapshotId").asText());
        }
        assertThat(leaseHolder("leased-4")).as("a stop that leaves the VM running keeps its lease").isEqualTo("host-d");
        // lost while no daemon ran (an operator's mistake): the restart that adopts the VM takes it again
        Files.delete(storedObject("leases/leased-4"));
        try (DaemonHarness second = new DaemonHarness(root, flags)) {
            assertThat(second.get("/v1/sandboxes/leased-4").body().path("state").asText()).isEqualTo("RUNNING");
            assertThat(second.get("/v1/sandboxes/leased-4").body().path("inStore").asBoolean()).as("kept in its record").isTrue();
            for (int i = 0; i < 600 && store.leaseHolder("leased-4").isEmpty(); i++) Thread.sleep(50);
            assertThat(leaseHolder("leased-4")).isEqualTo("host-d");
            assertThat(second.delete("/v1/sandboxes/leased-4").status()).isEqualTo(204);
            assertThat(storedObject("leases/leased-4")).doesNotExist();
        }
    }

    private static String leaseHolder(String sandboxId) throws Exception {
        return store.leaseHolder(sandboxId).orElseThrow(() -> new AssertionError("no lease of " + sandboxId));
    }

    private static Path storedObject(String key) {
        return store.storedObject(key);
    }
}
