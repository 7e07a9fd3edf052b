package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.store.S3ServerKind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.ateom.microvm.sandbox.SnapshotStoreDaemonTest.awaitPushed;
import static dev.ateom.microvm.sandbox.SnapshotStoreDaemonTest.downloadedBytes;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Four daemons that start at once against one S3Mock, whose conditional writes are racy: whatever order their probes
 * and verdict writes take, every host reports the same lease verdict (RACY, recorded by one of them), and in 20 rounds
 * of three hosts adopting the same sandbox at once no host ever holds its lease (each adopt is refused before it pulls
 * anything), so no two hosts hold one lease.
 */
class FourHostsOneVerdictTest {
    private static final int HOSTS = 4;
    private static final int ROUNDS = 20;

    @TempDir static Path dir;
    private static StoreHosts store;

    @AfterAll
    static void stop() {
        if (store != null) store.close();
    }

    @Test
    void everyHostReportsTheSameVerdictAndNoTwoHostsHoldOneLeaseInTwentyRoundsOfConcurrentAdopts() throws Exception {
        store = StoreHosts.start(dir, "four-hosts", S3ServerKind.S3MOCK, StoreHosts.Front.DIRECT);
        List<DaemonHarness> hosts = startAtOnce();

        List<JsonNode> verdicts = new ArrayList<>();
        for (DaemonHarness host : hosts) verdicts.add(host.get("/v1/store").body().path("leaseVerdict"));
        assertThat(verdicts.getFirst().path("state").asText()).as(verdicts.toString()).isEqualTo("RACY");
        assertThat(verdicts).as("every host's verdict").allSatisfy(v -> assertThat(v).isEqualTo(verdicts.getFirst()));
        assertThat(verdicts.getFirst().path("recordedBy").asText()).matches("host-[0-3]");

        DaemonHarness owner = hosts.getFirst();
        String snapshotId = SnapshotStoreDaemonTest.createWriteAndSuspend(owner, "wanted", "wanted by everyone");
        awaitPushed(owner, snapshotId);
        ObjectNode adopt = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshotId).put("adopt", true);
        List<DaemonHarness> adopters = hosts.subList(1, HOSTS);

        try (ExecutorService threads = Executors.newFixedThreadPool(adopters.size())) {
            for (int round = 1; round <= ROUNDS; round++) {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<DaemonApi.Response>> answers = new ArrayList<>();
                for (DaemonHarness adopter : adopters) {
                    answers.add(threads.submit((Callable<DaemonApi.Response>) () -> {
                        start.await();
                        return adopter.post("/v1/sandboxes", adopt);
                    }));
                }
                start.countDown();
                for (Future<DaemonApi.Response> answer : answers) {
                    DaemonApi.Response response = answer.get(2, TimeUnit.MINUTES);
                    assertThat(response.status()).as("round " + round + ": " + response.body()).isEqualTo(409);
                    assertThat(response.body().path("type").asText()).endsWith("leases-unavailable");
                }
                assertThat(store.list("leases/")).as("leases held after round " + round).isEmpty();
                long running = 0;
                for (DaemonHarness adopter : adopters) running += adopter.get("/v1/sandboxes/wanted").status() == 200 ? 1 : 0;
                assertThat(running).as("adopters running the sandbox after round " + round).isZero();
            }
        }
        for (DaemonHarness adopter : adopters) {
            assertThat(downloadedBytes(adopter)).as("bytes the refused adopts pulled").isZero();
            assertThat(adopter.get("/v1/store").body().path("leaseVerdict")).isEqualTo(verdicts.getFirst());
        }
        assertThat(owner.delete("/v1/sandboxes/wanted?deleteSnapshots=true").status()).isEqualTo(204);
    }

    /** The four daemons, started on four threads at the same moment: their start probes and verdict writes race. */
    private static List<DaemonHarness> startAtOnce() throws Exception {
        List<Future<DaemonHarness>> starting = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService threads = Executors.newFixedThreadPool(HOSTS)) {
            for (int i = 0; i < HOSTS; i++) {
                String hostId = "host-" + i;
                Map<ConfigOption, String> flags = store.flags(hostId, i == 0, "host-0");
                Path root = store.root(hostId);
                starting.add(threads.submit(() -> {
                    start.await();
                    return new DaemonHarness(root, flags);
                }));
            }
            start.countDown();
            List<DaemonHarness> hosts = new ArrayList<>();
            Exception failed = null;
            for (Future<DaemonHarness> host : starting) {
                try {
                    hosts.add(store.closesWith(host.get(3, TimeUnit.MINUTES))); // the others are closed even if one failed
                } catch (Exception e) {
                    if (failed == null) failed = e;
                }
            }
            if (failed != null) throw failed;
            return hosts;
        }
    }
}
