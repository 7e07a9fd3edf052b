package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.json.ApiJson;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;

import static dev.ateom.microvm.sandbox.SnapshotStoreDaemonTest.awaitPushed;
import static dev.ateom.microvm.sandbox.SnapshotStoreDaemonTest.downloadedBytes;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store's lease verdict through the daemons: two hosts behind the proxy that makes s3proxy's conditional writes
 * atomic show the same HONOURED verdict; a RACY finding another host recorded stops adopts on every host before anything
 * is pulled; only the operator's reset ({@code ateom store-reset-verdict}, token-protected) brings leases back.
 */
class LeaseVerdictDaemonTest {
    @TempDir static Path dir;
    static StoreHosts store;
    static DaemonHarness hostA;
    static DaemonHarness hostB;

    @BeforeAll
    static void start() throws Exception {
        store = StoreHosts.start(dir, "verdict-test", StoreHosts.Front.LEASE_PROXY);
        hostA = store.host("host-a", store.flags("host-a", true));
        hostB = store.host("host-b", store.flags("host-b", false, "host-a"));
    }

    @AfterAll
    static void stop() {
        if (store != null) store.close();
    }

    @Test
    void aRacyFindingOfAnyHostStopsAdoptsOnEveryHostUntilAnOperatorResetsTheVerdict() throws Exception {
        JsonNode honoured = hostA.get("/v1/store").body().path("leaseVerdict");
        assertThat(honoured.path("state").asText()).as(honoured.toString()).isEqualTo("HONOURED");
        assertThat(honoured.path("recordedBy").asText()).isEqualTo("host-a");
        assertThat(hostB.get("/v1/store").body().path("leaseVerdict")).isEqualTo(honoured);

        String snapshotId = SnapshotStoreDaemonTest.createWriteAndSuspend(hostA, "verdict-1", "moves once the verdict allows");
        awaitPushed(hostA, snapshotId);
        store.awaitNoLease("verdict-1");

        // another host of the store saw two winners of one lease and recorded it
        ObjectNode finding = ApiJson.mapper().createObjectNode().put("conditionalWrites", "RACY").put("hostId", "host-z")
                .put("recordedAt", Instant.now().toString()).put("detail", "host-z saw two writers win leases/x");
        store.put("lease-verdict/not-honoured-host-z-0001", ApiJson.mapper().writeValueAsBytes(finding));
        JsonNode racy = hostB.get("/v1/store").body().path("leaseVerdict");
        assertThat(racy.path("state").asText()).as(racy.toString()).isEqualTo("RACY");
        assertThat(racy.path("recordedBy").asText()).isEqualTo("host-z");

        ObjectNode adopt = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshotId).put("adopt", true);
        var refused = hostB.post("/v1/sandboxes", adopt);
        assertThat(refused.status()).as(refused.body().toString()).isEqualTo(409);
        assertThat(refused.body().path("type").asText()).endsWith("leases-unavailable");
        assertThat(refused.body().path("detail").asText()).contains("host-z saw two writers win").contains("nothing was pulled");
        assertThat(downloadedBytes(hostB)).isZero();

        var anonymous = hostB.send(HttpRequest.newBuilder(hostB.uri("/v1/store/lease-verdict/reset"))
                .POST(HttpRequest.BodyPublishers.ofString("", StandardCharsets.UTF_8)), false);
        assertThat(anonymous.status()).isEqualTo(401);
        assertThat(hostA.get("/v1/store").body().path("leaseVerdict").path("state").asText()).isEqualTo("RACY");

        SnapshotStoreDaemonTest.Cli reset = SnapshotStoreDaemonTest.cli(hostB, "store-reset-verdict");
        assertThat(reset.exitCode()).as(reset.out()).isZero();
        assertThat(reset.out()).contains("was RACY").contains("deleted 2 verdict objects").contains("now HONOURED");
        JsonNode after = hostA.get("/v1/store").body().path("leaseVerdict");
        assertThat(after.path("state").asText()).isEqualTo("HONOURED");
        assertThat(after.path("recordedBy").asText()).isEqualTo("host-b");

        var adopted = hostB.post("/v1/sandboxes", adopt);
        assertThat(adopted.status()).as(adopted.body().toString()).isEqualTo(201);
        assertThat(store.leaseHolder("verdict-1")).hasValue("host-b");
        assertThat(hostB.delete("/v1/sandboxes/verdict-1?deleteSnapshots=true").status()).isEqualTo(204);
        assertThat(hostA.delete("/v1/sandboxes/verdict-1?deleteSnapshots=true").status()).isEqualTo(204);
    }
}
