package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.Main;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.remote.RemoteSnapshots;
import dev.ateom.microvm.sandbox.operation.LeaseKeeper;
import dev.ateom.store.ConditionalPutProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two hosts sharing one snapshot store: two in-process daemons with their own state and run dirs (the CHV stand-in's
 * {@code none} backend, real virtiofsd), one s3proxy (filesystem backend) on loopback that they reach only over S3
 * with path-style URLs, through the proxy that makes its conditional writes atomic (so the store's lease verdict,
 * which every host of the prefix shares, is HONOURED). Host A pushes on every suspend; host B starts with an empty
 * local store. What every S3 server must do (clone elsewhere, corruption named, outage and retry, adopt refused where
 * leases are not honoured, gc) is {@link StoreServersDaemonTest}, per server; this class keeps what concerns the
 * daemon's wiring.
 */
class SnapshotStoreDaemonTest {
    private static final String PREFIX = "snapshots-test";

    @TempDir static Path dir;
    static StoreHosts store;
    static DaemonHarness hostA;
    static DaemonHarness hostB;

    @BeforeAll
    static void start() throws Exception {
        store = StoreHosts.start(dir, PREFIX, StoreHosts.Front.LEASE_PROXY);
        hostA = store.host("host-a", storeFlags("host-a", true));
        hostB = store.host("host-b", store.flags("host-b", false, "host-a"));
    }

    @AfterAll
    static void stop() {
        if (store != null) store.close();
    }

    static Map<ConfigOption, String> storeFlags(String hostId, boolean pushOnSuspend) {
        return store.flags(hostId, pushOnSuspend);
    }

    @Test
    void aSnapshotPushedOnHostAIsClonedOnHostBWithItsDurableData() throws Exception {
        String notes = "written on host A " + randomHex();
        String snapshotId = createWriteAndSuspend(hostA, "move-1", notes);
        JsonNode remote = awaitPushed(hostA, snapshotId);
        assertThat(remote.path("bytesUploaded").asLong()).isPositive();

        JsonNode listing = hostB.get("/v1/snapshots?remote=true").body();
        assertThat(listing.path("items").findValuesAsText("snapshotId")).contains(snapshotId);
        var onlyRemote = hostB.get("/v1/snapshots/" + snapshotId);
        assertThat(onlyRemote.status()).isEqualTo(200);
        assertThat(onlyRemote.body().path("local").asBoolean(true)).isFalse();
        assertThat(onlyRemote.body().path("remote").path("state").asText()).isEqualTo("pushed");
        assertThat(hostB.stateDir().resolve("snapshots").resolve(snapshotId)).doesNotExist();

        var clone = hostB.post("/v1/sandboxes", cloneRequest(snapshotId, "moved-1"));
        assertThat(clone.status()).as(clone.body().toString()).isEqualTo(201);
        assertThat(clone.body().path("sandbox").path("state").asText()).isEqualTo("RUNNING");
        assertThat(Files.readString(hostB.stateDir().resolve("sandboxes/moved-1/durable/data/notes.txt"))).isEqualTo(notes);
        assertThat(Files.readString(hostB.stateDir().resolve("sandboxes/moved-1/system-info/identity/name"))).isEqualTo("moved-1");
        var local = hostB.get("/v1/snapshots/" + snapshotId + "?verify=true");
        assertThat(local.body().path("local").asBoolean()).isTrue();
        assertThat(local.body().path("verification").path("problems")).as(local.body().toString()).isEmpty();

        double downloaded = downloadedBytes(hostB);
        assertThat(downloaded).isPositive();

        // the second and third clones find the snapshot on B: nothing is downloaded again
        for (String id : List.of("moved-2", "moved-3")) {
            var again = hostB.post("/v1/sandboxes", cloneRequest(snapshotId, id));
            assertThat(again.status()).as(again.body().toString()).isEqualTo(201);
            assertThat(again.body().path("timingsMs").has("pull")).isFalse();
        }
        assertThat(downloadedBytes(hostB)).as("bytes downloaded after three clones").isEqualTo(downloaded);

        for (String id : List.of("moved-1", "moved-2", "moved-3")) assertThat(hostB.delete("/v1/sandboxes/" + id).status()).isEqualTo(204);
        assertThat(hostA.delete("/v1/sandboxes/move-1?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void anExplicitPushAfterARemoteDeleteSendsNothingNew() throws Exception {
        String snapshotId = createWriteAndSuspend(hostA, "push-1", "push me " + randomHex());
        awaitPushed(hostA, snapshotId);
        assertThat(hostA.delete("/v1/snapshots/" + snapshotId + "?remote=true").status()).isEqualTo(204);
        assertThat(hostA.get("/v1/snapshots/" + snapshotId).body().path("remote").path("state").asText()).isIn("pushed", "not-pushed");
        assertThat(hostB.get("/v1/snapshots/" + snapshotId).status()).isEqualTo(404);

        var push = hostA.post("/v1/snapshots/" + snapshotId + "/push", "");
        assertThat(push.status()).as(push.body().toString()).isEqualTo(202);
        assertThat(push.body().path("remote").path("state").asText()).isIn("pending", "pushing", "pushed");
        JsonNode remote = awaitPushed(hostA, snapshotId);
        assertThat(remote.path("bytesUploaded").asLong()).as("every chunk was in the store already: only the manifest is new")
                .isZero();
        assertThat(remote.path("bytesDeduplicated").asLong()).isPositive();
        assertThat(hostB.get("/v1/snapshots/" + snapshotId).body().path("remote").path("state").asText()).isEqualTo("pushed");

        var missing = hostA.post("/v1/snapshots/no-such-snapshot-00000000/push", "");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(hostA.delete("/v1/sandboxes/push-1?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void aSuspendedSandboxWhoseLocalSnapshotWasDeletedResumesFromTheStore() throws Exception {
        String notes = "kept only in the store " + randomHex();
        String snapshotId = createWriteAndSuspend(hostA, "resume-1", notes);
        awaitPushed(hostA, snapshotId);
        assertThat(hostA.delete("/v1/snapshots/" + snapshotId + "?force=true").status()).isEqualTo(204);
        assertThat(hostA.stateDir().resolve("snapshots").resolve(snapshotId)).doesNotExist();

        var resumed = hostA.post("/v1/sandboxes/resume-1/resume", "{}");
        assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
        assertThat(resumed.body().path("sandbox").path("state").asText()).isEqualTo("RUNNING");
        assertThat(resumed.body().path("timingsMs").has("pull")).isTrue();
        assertThat(hostA.stateDir().resolve("snapshots").resolve(snapshotId).resolve("manifest.json")).exists();
        assertThat(Files.readString(hostA.stateDir().resolve("sandboxes/resume-1/durable/data/notes.txt"))).isEqualTo(notes);
        assertThat(hostA.delete("/v1/sandboxes/resume-1?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void aPushCutOffByAStoreOutageFailsWithoutAManifestAndItsRetrySendsOnlyTheMissingChunks(@TempDir Path other) throws Exception {
        // this host reaches s3proxy through a proxy that sees every request: the outage starts at an exact chunk PUT
        AtomicInteger chunkPuts = new AtomicInteger();
        try (ConditionalPutProxy front = new ConditionalPutProxy(store.s3().endpoint())) {
            Map<ConfigOption, String> flags = storeFlags("host-f", false);
            flags.put(ConfigOption.SNAPSHOT_STORE_ENDPOINT, front.endpoint().toString());
            try (DaemonHarness host = new DaemonHarness(other, flags)) {
                host.createOk(host.spec("outage-1", "outage-1"));
                byte[] data = new byte[12 << 20]; // incompressible and unique: about ten durable chunks of its own
                ThreadLocalRandom.current().nextBytes(data);
                Files.write(host.stateDir().resolve("sandboxes/outage-1/durable/data/blob"), data);
                var suspended = host.post("/v1/sandboxes/outage-1/suspend", "{}");
                assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
                String snapshotId = suspended.body().path("snapshotId").asText();
                store.awaitNoLease("outage-1"); // the suspend's give-back is done before the store goes away

                // the third chunk PUT stops the server, once the first two are stored: the retry has chunks to skip
                Set<String> untouched = storedChunks();
                front.beforeForwarding((method, path) -> {
                    if (method.equals("PUT") && path.contains("/chunks/") && chunkPuts.incrementAndGet() == 3) {
                        awaitStoredChunks(untouched.size() + 2);
                        store.s3().stop();
                    }
                });
                assertThat(host.post("/v1/snapshots/" + snapshotId + "/push", "").status()).isEqualTo(202);
                JsonNode failed = awaitSettled(host, snapshotId);
                assertThat(failed.path("state").asText()).as(failed.toString()).isEqualTo("failed");
                assertThat(failed.path("error").asText()).isNotEmpty();
                assertThat(chunkPuts.get()).as("chunk PUTs before the push gave up").isGreaterThanOrEqualTo(3);
                // leases are enforced on this host (the proxy makes conditional writes atomic): a sandbox that has been
                // in the store (a push began) may be adopted elsewhere, so without the store its resume cannot take the
                // lease and it does not run (docs/decisions.md, "A sandbox holds its lease while it runs")
                assertThat(host.get("/v1/sandboxes/outage-1").body().path("inStore").asBoolean()).as("marked before the push").isTrue();
                var resume = host.post("/v1/sandboxes/outage-1/resume", "{}");
                assertThat(resume.status()).as(resume.body().toString()).isEqualTo(503);
                assertThat(resume.body().path("type").asText()).endsWith("snapshot-store-unavailable");
                assertThat(resume.body().path("detail").asText()).contains("outage-1 has been in the snapshot store");
                assertThat(host.get("/v1/sandboxes/outage-1").body().path("state").asText()).isEqualTo("SUSPENDED");
                // one that never was has nothing another host could run: it is created, suspended and resumed without
                try (LoggedMessages warnings = LoggedMessages.of(LeaseKeeper.class, Level.WARNING)) {
                    host.createOk(host.spec("outage-2", "outage-2"));
                    var suspendedLocal = host.post("/v1/sandboxes/outage-2/suspend", "{}");
                    assertThat(suspendedLocal.status()).as(suspendedLocal.body().toString()).isEqualTo(200);
                    var resumedLocal = host.post("/v1/sandboxes/outage-2/resume", "{}");
                    assertThat(resumedLocal.status()).as(resumedLocal.body().toString()).isEqualTo(200);
                    assertThat(resumedLocal.body().path("sandbox").path("state").asText()).isEqualTo("RUNNING");
                    assertThat(resumedLocal.body().path("sandbox").has("inStore")).isFalse();
                    assertThat(warnings.messages())
                            .anySatisfy(w -> assertThat(w).contains("sandbox outage-2: create goes on without its lease"))
                            .anySatisfy(w -> assertThat(w).contains("sandbox outage-2: resume goes on without its lease"));
                }
                store.s3().restart();
                assertThat(storedObject("snapshots/" + snapshotId + "/manifest.json")).as("no manifest: the snapshot is absent").doesNotExist();
                assertThat(host.get("/v1/snapshots?remote=true").body().path("items").findValuesAsText("snapshotId")).doesNotContain(snapshotId);

                Set<String> storedBefore = storedChunks();
                assertThat(storedBefore.size() - untouched.size()).as("chunks the cut-off push stored").isGreaterThanOrEqualTo(2);
                front.beforeForwarding((method, path) -> {
                    if (method.equals("PUT") && path.contains("/chunks/")) chunkPuts.incrementAndGet();
                });
                chunkPuts.set(0);
                assertThat(host.post("/v1/snapshots/" + snapshotId + "/push", "").status()).isEqualTo(202);
                JsonNode pushed = awaitPushed(host, snapshotId);
                Set<String> storedAfter = storedChunks();
                assertThat(storedAfter).containsAll(storedBefore);
                assertThat(chunkPuts.get()).as("chunk PUTs of the retry: only the chunks the store lacked")
                        .isEqualTo(storedAfter.size() - storedBefore.size()).isPositive();
                assertThat(pushed.path("bytesDeduplicated").asLong()).as(pushed.toString()).isPositive();
                assertThat(pushed.path("bytesUploaded").asLong()).isPositive();
                assertThat(storedObject("snapshots/" + snapshotId + "/manifest.json")).exists();
                assertThat(host.delete("/v1/sandboxes/outage-1?deleteSnapshots=true").status()).isEqualTo(204);

                // outage-2 runs without a lease: a push of a snapshot of it takes the lease before anything is sent,
                // so no other host adopts that snapshot while it runs here
                assertThat(store.leaseHolder("outage-2")).isEmpty();
                var checkpoint = host.post("/v1/sandboxes/outage-2/checkpoint", "{}");
                assertThat(checkpoint.status()).as(checkpoint.body().toString()).isEqualTo(200);
                String checkpointId = checkpoint.body().path("snapshotId").asText();
                assertThat(host.post("/v1/snapshots/" + checkpointId + "/push", "").status()).isEqualTo(202);
                assertThat(store.leaseHolder("outage-2")).as("taken before the push answered").hasValue("host-f");
                assertThat(host.get("/v1/sandboxes/outage-2").body().path("inStore").asBoolean()).isTrue();
                awaitPushed(host, checkpointId);
                assertThat(host.delete("/v1/sandboxes/outage-2?deleteSnapshots=true").status()).isEqualTo(204);
                assertThat(store.leaseHolder("outage-2")).isEmpty();
            }
        }
    }

    @Test
    void aDaemonStartedDuringAStoreOutageDoesNotRunASandboxThatHasBeenInTheStore(@TempDir Path other) throws Exception {
        // leases are enforced through the proxy (conditional writes made atomic); closing it is the outage
        Map<ConfigOption, String> flags = storeFlags("host-g", true);
        String snapshotId;
        try (ConditionalPutProxy front = new ConditionalPutProxy(store.s3().endpoint())) {
            flags.put(ConfigOption.SNAPSHOT_STORE_ENDPOINT, front.endpoint().toString());
            try (DaemonHarness host = new DaemonHarness(other, flags)) {
                snapshotId = createWriteAndSuspend(host, "restart-1", "pushed " + randomHex());
                awaitPushed(host, snapshotId);
                assertThat(host.get("/v1/sandboxes/restart-1").body().path("inStore").asBoolean())
                        .as("marked by the push after the suspend, before its manifest").isTrue();
                store.awaitNoLease("restart-1");
            }
        }
        // the restarted daemon never reaches the store, so it cannot probe it: leases are assumed enforced, and a
        // sandbox another host could adopt from the store does not run without its lease
        try (DaemonHarness restarted = new DaemonHarness(other, flags)) {
            var resume = restarted.post("/v1/sandboxes/restart-1/resume", "{}");
            assertThat(resume.status()).as(resume.body().toString()).isEqualTo(503);
            assertThat(resume.body().path("detail").asText()).contains("restart-1 has been in the snapshot store");
            assertThat(restarted.get("/v1/sandboxes/restart-1").body().path("state").asText()).isEqualTo("SUSPENDED");
            assertThat(restarted.delete("/v1/sandboxes/restart-1?deleteSnapshots=true").status()).isEqualTo(204);
        }
        assertThat(hostA.delete("/v1/snapshots/" + snapshotId + "?remote=true").status()).isEqualTo(204);
    }

    /** Waits (bounded) until s3proxy holds {@code count} chunks. */
    private static void awaitStoredChunks(int count) {
        try {
            for (int i = 0; i < 200 && storedChunks().size() < count; i++) Thread.sleep(50);
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The chunks s3proxy holds (a PUT it was killed in leaves a temp file "<key>-<uuid>" behind: not a chunk). */
    private static Set<String> storedChunks() throws IOException {
        if (!Files.isDirectory(storedObject("chunks"))) return Set.of(); // no test pushed before this one
        try (Stream<Path> chunks = Files.list(storedObject("chunks"))) {
            return chunks.map(p -> p.getFileName().toString()).filter(name -> name.matches("[0-9a-f]{64}")).collect(Collectors.toSet());
        }
    }

    @Test
    void aSnapshotOfAnotherCpuIsRefusedNamingTheMismatchUnlessAllowed() throws Exception {
        String snapshotId = createWriteAndSuspend(hostA, "cpu-1", "cpu " + randomHex());
        awaitPushed(hostA, snapshotId);
        // as if pushed from a host of another vendor: the remote manifest's host record is what a pull compares
        Path manifest = storedObject("snapshots/" + snapshotId + "/manifest.json");
        ObjectNode remoteManifest = (ObjectNode) ApiJson.mapper().readTree(manifest.toFile());
        ((ObjectNode) remoteManifest.path("host").path("cpu")).put("vendor", "OtherVendorCPU");
        Files.write(manifest, ApiJson.mapper().writeValueAsBytes(remoteManifest));

        var refused = hostB.post("/v1/sandboxes", cloneRequest(snapshotId, "cpu-clone"));
        assertThat(refused.status()).as(refused.body().toString()).isEqualTo(409);
        assertThat(refused.body().path("type").asText()).endsWith("host-mismatch");
        assertThat(refused.body().path("detail").asText()).contains("cpu.vendor").contains("OtherVendorCPU");
        assertThat(hostB.stateDir().resolve("snapshots").resolve(snapshotId)).doesNotExist();

        ObjectNode allowed = cloneRequest(snapshotId, "cpu-clone").put("allowCpuMismatch", true);
        var clone = hostB.post("/v1/sandboxes", allowed);
        assertThat(clone.status()).as(clone.body().toString()).isEqualTo(201);
        assertThat(clone.body().path("sandbox").path("spec").has("allowCpuMismatch")).isFalse();
        assertThat(hostB.delete("/v1/sandboxes/cpu-clone?deleteSnapshots=true").status()).isEqualTo(204);
        assertThat(hostA.delete("/v1/sandboxes/cpu-1?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void theStoreShowsItselfAndGcKeepsEveryReferencedChunk() throws Exception {
        JsonNode store = hostA.get("/v1/store").body();
        assertThat(store.path("configured").asBoolean()).isTrue();
        assertThat(store.path("location").asText()).isEqualTo("s3://" + StoreHosts.BUCKET + "/" + PREFIX);
        assertThat(store.path("usable").asBoolean()).as(store.toString()).isTrue();
        assertThat(store.path("hostId").asText()).isEqualTo("host-a");
        assertThat(store.path("conditionalWrites").path("result").asText()).isNotEmpty();

        String snapshotId = createWriteAndSuspend(hostA, "gc-1", "gc " + randomHex());
        awaitPushed(hostA, snapshotId);
        var gc = hostB.post("/v1/store/gc", "");
        assertThat(gc.status()).as(gc.body().toString()).isEqualTo(200);
        assertThat(gc.body().path("removed")).as("everything is referenced or younger than the grace").isEmpty();
        assertThat(gc.body().path("missing")).isEmpty();
        assertThat(Files.exists(storedObject("chunks/" + firstChunkOf(snapshotId, "durable.tar")))).isTrue();

        String metrics = hostA.getText("/metrics");
        assertThat(metrics).contains("ateom_store_bytes_total{direction=\"uploaded\"}").contains("ateom_store_chunk_cache_bytes");
        assertThat(hostA.delete("/v1/sandboxes/gc-1?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void aDaemonWithoutAStoreAnswersStoreRequestsWithAProblem(@TempDir Path plain) throws Exception {
        try (DaemonHarness local = new DaemonHarness(plain, Map.of())) {
            assertThat(local.get("/v1/store").body().path("configured").asBoolean(true)).isFalse();
            var push = local.post("/v1/snapshots/any-00000000/push", "");
            assertThat(push.status()).isEqualTo(409);
            assertThat(push.body().path("type").asText()).endsWith("snapshot-store-not-configured");
            assertThat(local.get("/v1/snapshots?remote=true").status()).isEqualTo(409);
            assertThat(local.get("/v1/snapshots").body().path("items")).isEmpty();
        }
    }

    @Test
    void anUnreachableStoreIsWarnedAboutAndLocalSnapshotsStillWork(@TempDir Path other) throws Exception {
        Map<ConfigOption, String> flags = new EnumMap<>(storeFlags("host-c", true));
        flags.put(ConfigOption.SNAPSHOT_STORE_ENDPOINT, "http://127.0.0.1:" + closedPort());
        try (DaemonHarness unreachable = new DaemonHarness(other, flags)) {
            JsonNode store = unreachable.get("/v1/store").body();
            assertThat(store.path("usable").asBoolean(true)).isFalse();
            var list = unreachable.get("/v1/snapshots?remote=true");
            assertThat(list.status()).as(list.body().toString()).isEqualTo(503);
            assertThat(list.body().path("type").asText()).endsWith("snapshot-store-unavailable");
            assertThat(list.body().path("detail").asText()).contains("snapshot-store-endpoint");

            String snapshotId = createWriteAndSuspend(unreachable, "offline-1", "offline");
            JsonNode remote = awaitSettled(unreachable, snapshotId);
            assertThat(remote.path("state").asText()).isEqualTo("failed");
            assertThat(remote.path("error").asText()).isNotEmpty();
            var resumed = unreachable.post("/v1/sandboxes/offline-1/resume", "{}");
            assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
            assertThat(unreachable.delete("/v1/sandboxes/offline-1?deleteSnapshots=true").status()).isEqualTo(204);
        }
    }

    @Test
    void aStoreThatRefusesIsAWarningNamingTheOptionAnd502sWhileLocalFeaturesWork(@TempDir Path other) throws Exception {
        Map<ConfigOption, String> unknownBucket = new EnumMap<>(storeFlags("host-d", true));
        unknownBucket.put(ConfigOption.SNAPSHOT_STORE, "s3://no-such-bucket/x");
        assertRefusedStore(other.resolve("bucket"), unknownBucket, "check snapshot-store)");

        // no credentials anywhere the SDK looks: no aws.* properties, no environment, an empty profile file, no EC2 metadata
        Map<String, String> saved = new HashMap<>();
        for (String key : List.of("aws.accessKeyId", "aws.secretAccessKey")) saved.put(key, System.clearProperty(key));
        System.setProperty("aws.sharedCredentialsFile", Files.writeString(Files.createDirectories(other).resolve("no-credentials"), "").toString());
        System.setProperty("aws.configFile", other.resolve("no-credentials").toString());
        System.setProperty("aws.disableEc2Metadata", "true");
        try {
            assertRefusedStore(other.resolve("credentials"), storeFlags("host-e", true), "check credentials (AWS_ACCESS_KEY_ID");
        } finally {
            saved.forEach(System::setProperty);
            for (String key : List.of("aws.sharedCredentialsFile", "aws.configFile", "aws.disableEc2Metadata")) System.clearProperty(key);
        }
    }

    /** A daemon on {@code flags} warns at start naming {@code option}, answers store requests 502, and creates sandboxes. */
    private static void assertRefusedStore(Path root, Map<ConfigOption, String> flags, String option) throws Exception {
        try (LoggedMessages warnings = LoggedMessages.of(RemoteSnapshots.class, Level.WARNING);
             DaemonHarness refused = new DaemonHarness(Files.createDirectories(root), flags)) {
            assertThat(warnings.messages()).as("warnings at start").anySatisfy(w -> assertThat(w).contains(option));
            var list = refused.get("/v1/snapshots?remote=true");
            assertThat(list.status()).as(list.body().toString()).isEqualTo(502);
            assertThat(list.body().path("type").asText()).endsWith("snapshot-store-error");
            assertThat(list.body().path("detail").asText()).contains(option);
            var gc = refused.post("/v1/store/gc", "");
            assertThat(gc.status()).as(gc.body().toString()).isEqualTo(502);
            assertThat(gc.body().path("detail").asText()).contains(option);
            assertThat(refused.get("/v1/store").body().path("usable").asBoolean(true)).isFalse();
            refused.createOk(refused.spec("local-1", "local-1"));
            assertThat(refused.delete("/v1/sandboxes/local-1").status()).isEqualTo(204);
        }
    }

    @Test
    void theCliPushesWithProgressAndListsRemoteStates() throws Exception {
        String snapshotId = createWriteAndSuspend(hostA, "cli-1", "cli " + randomHex());
        awaitPushed(hostA, snapshotId);
        assertThat(hostA.delete("/v1/snapshots/" + snapshotId + "?remote=true").status()).isEqualTo(204);

        Cli pushed = cli(hostA, "push", snapshotId, "-o", "json");
        assertThat(pushed.exitCode()).as(pushed.out()).isZero();
        assertThat(ApiJson.mapper().readTree(pushed.out()).path("state").asText()).isEqualTo("pushed");
        Cli listed = cli(hostA, "snapshots");
        assertThat(listed.exitCode()).isZero();
        assertThat(listed.out()).contains("REMOTE").containsPattern(snapshotId + ".*pushed");
        Cli remote = cli(hostB, "snapshots", "--remote");
        assertThat(remote.out()).contains(snapshotId);
        Cli missing = cli(hostA, "push", "no-such-snapshot-00000000");
        assertThat(missing.exitCode()).isEqualTo(4);
        assertThat(hostA.delete("/v1/sandboxes/cli-1?deleteSnapshots=true").status()).isEqualTo(204);
    }

    // ------------------------------------------------------------------ helpers

    record Cli(int exitCode, String out) {}

    /** Runs {@code ateom <args>} in-process against {@code host}, with its standard output captured. */
    static synchronized Cli cli(DaemonHarness host, String... args) {
        List<String> argv = new ArrayList<>(List.of(args));
        argv.addAll(List.of("--url", "http://127.0.0.1:" + host.daemon.port(), "--token-file", host.stateDir().resolve("api-token").toString()));
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            int exit = Main.commandLine().execute(argv.toArray(String[]::new));
            return new Cli(exit, captured.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(original);
        }
    }

    static String createWriteAndSuspend(DaemonHarness host, String id, String notes) throws Exception {
        host.createOk(host.spec(id, id));
        Files.writeString(host.stateDir().resolve("sandboxes/" + id + "/durable/data/notes.txt"), notes);
        var suspended = host.post("/v1/sandboxes/" + id + "/suspend", "{}");
        assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
        return suspended.body().path("snapshotId").asText();
    }

    static ObjectNode cloneRequest(String snapshotId, String id) {
        ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshotId).put("id", id);
        clone.putObject("identity").put("name", id).put("namespace", "tests");
        return clone;
    }

    /** Waits (bounded) until the snapshot's push is over and asserts it pushed; returns {@code remote}. */
    static JsonNode awaitPushed(DaemonHarness host, String snapshotId) throws Exception {
        JsonNode remote = awaitSettled(host, snapshotId);
        assertThat(remote.path("state").asText()).as(remote.toString()).isEqualTo("pushed");
        return remote;
    }

    static JsonNode awaitSettled(DaemonHarness host, String snapshotId) throws Exception {
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 1200; i++) {
            JsonNode remote = host.get("/v1/snapshots/" + snapshotId).body().path("remote");
            String state = remote.path("state").asText();
            seen.add(state);
            if (state.equals("pushed") || state.equals("failed")) return remote;
            Thread.sleep(100);
        }
        throw new AssertionError("push of " + snapshotId + " did not finish; states seen: " + seen);
    }

    /** {@code ateom_store_bytes_total{direction="downloaded"}} of a host (0 before its first pull). */
    static double downloadedBytes(DaemonHarness host) throws Exception {
        String prefix = "ateom_store_bytes_total{direction=\"downloaded\"} ";
        return host.metrics().lines().filter(l -> l.startsWith(prefix)).mapToDouble(l -> Double.parseDouble(l.substring(prefix.length())))
                .findFirst().orElse(0);
    }

    /** The first chunk of {@code file} in the stored remote manifest. */
    private static String firstChunkOf(String snapshotId, String file) throws IOException {
        JsonNode manifest = ApiJson.mapper().readTree(storedObject("snapshots/" + snapshotId + "/manifest.json").toFile());
        for (JsonNode entry : (ArrayNode) manifest.path("files")) {
            if (entry.path("path").asText().equals(file)) return entry.path("chunks").get(0).path("sha256").asText();
        }
        throw new AssertionError(file + " not in the manifest of " + snapshotId);
    }

    /** Where s3proxy's filesystem backend keeps an object: tests plant damage behind the daemons' backs. */
    private static Path storedObject(String key) {
        return store.storedObject(key);
    }

    static String randomHex() {
        byte[] random = new byte[8];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    private static int closedPort() throws IOException {
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
