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
        ObjectNode adopt = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshotId).put("adopt", true);

        var adopted = hostB.post("/v1/sandboxes", adopt);
        assertThat(adopted.status()).as(adopted.body().toString()).isEqualTo(201);
        assertThat(adopted.body().path("sandbox").path("state").asText()).isEqualTo("RUNNING");
        assertThat(Files.readString(hostB.stateDir().resolve("sandboxes/leased-1/durable/data/notes.txt"))).isEqualTo(notes);
        assertThat(leaseHolder("leased-1")).isEqualTo("host-b");

        // the host it came from may not run it while B holds it, and says who does
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

        // deleting it on B gives the lease back: A may run its own copy again (from A's last snapshot, not B's state)
        assertThat(hostB.delete("/v1/sandboxes/leased-1?deleteSnapshots=true").status()).isEqualTo(204);
        assertThat(storedObject("leases/leased-1")).doesNotExist();
        var resumedOnA = hostA.post("/v1/sandboxes/leased-1/resume", "{}");
        assertThat(resumedOnA.status()).as(resumedOnA.body().toString()).isEqualTo(200);
        assertThat(resumedOnA.body().path("sandbox").path("state").asText()).isEqualTo("RUNNING");
        assertThat(storedObject("leases/leased-1")).as("a resume takes no lease").doesNotExist();
        assertThat(hostA.delete("/v1/sandboxes/leased-1?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void anAdoptOfASnapshotAlreadyHereKeepsItWhenRefused() throws Exception {
        String snapshotId = createWriteAndSuspend(hostA, "leased-2", "stays on A " + randomHex());
        awaitPushed(hostA, snapshotId);
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

    private static String leaseHolder(String sandboxId) throws Exception {
        Path lease = storedObject("leases/" + sandboxId);
        assertThat(lease).as("lease of " + sandboxId).exists();
        return ApiJson.mapper().readTree(lease.toFile()).path("hostId").asText();
    }

    private static Path storedObject(String key) {
        return store.storedObject(key);
    }
}
