package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.luben.zstd.Zstd;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.snapshot.TreeDeleter;
import dev.ateom.store.ConditionalPutProxy;
import dev.ateom.store.S3ServerKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.ateom.microvm.sandbox.SnapshotStoreDaemonTest.awaitPushed;
import static dev.ateom.microvm.sandbox.SnapshotStoreDaemonTest.awaitSettled;
import static dev.ateom.microvm.sandbox.SnapshotStoreDaemonTest.cloneRequest;
import static dev.ateom.microvm.sandbox.SnapshotStoreDaemonTest.downloadedBytes;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two daemons sharing one store, on each S3 server the tests start (s3proxy, S3Mock, s3rver), reached only over S3
 * (in-process daemons, the CHV stand-in's {@code none} backend, real virtiofsd). Host A pushes on every suspend and
 * runs with leases on; host B starts with an empty local store, leases off, and reaches the store through a front
 * that can cut it off at an exact request. None of the three servers honours conditional writes, so the store's lease
 * verdict is not HONOURED and A refuses adopts.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(S3ServerKind.class)
class StoreServersDaemonTest {
    private static Path dir;
    private static StoreHosts store;
    private static ConditionalPutProxy front;
    private static DaemonHarness hostA;
    private static DaemonHarness hostB;

    @Parameter
    S3ServerKind kind;

    @BeforeParameterizedClassInvocation
    static void start(S3ServerKind kind) throws Exception {
        dir = Files.createTempDirectory("ateom-servers-" + kind.name().toLowerCase(Locale.ROOT) + "-");
        store = StoreHosts.start(dir, "fleet-" + kind.name().toLowerCase(Locale.ROOT), kind, StoreHosts.Front.DIRECT);
        front = new ConditionalPutProxy(store.s3().endpoint());
        hostA = store.host("host-a", store.flags("host-a", true));
        Map<ConfigOption, String> flagsB = store.flags("host-b", false, "host-a");
        flagsB.put(ConfigOption.SNAPSHOT_STORE_ENDPOINT, front.endpoint().toString());
        flagsB.put(ConfigOption.SNAPSHOT_STORE_LEASES, "off");
        hostB = store.host("host-b", flagsB);
    }

    @AfterParameterizedClassInvocation
    static void stop() throws IOException {
        try {
            store.close();
        } finally {
            front.close();
            TreeDeleter.delete(dir);
        }
    }

    @Test
    void aSnapshotIsClonedElsewhereByteIdenticalAPushAfterASmallChangeSendsLittleAndGcKeepsWhatIsReferenced() throws Exception {
        hostA.createOk(hostA.spec("move-1", "move-1"));
        Path durable = hostA.stateDir().resolve("sandboxes/move-1/durable/data");
        writeAwkwardTree(durable);
        // most of the snapshot: a small change later leaves it alone. Seeded, so that its chunk boundaries (and with them
        // the size of the one chunk the change re-sends: the tail of model.bin with the files sorted after it) are the same
        // on every run; random bytes put that chunk anywhere between 0.5 and 4 MiB, up to half the push
        byte[] model = new byte[8 << 20];
        new Random(20261202L).nextBytes(model);
        Files.write(durable.resolve("model.bin"), model);
        long chunksBefore = store.bytesUnder("chunks/");
        String snapshotId = suspend(hostA, "move-1");
        JsonNode firstPush = awaitPushed(hostA, snapshotId);
        long oneSnapshot = store.bytesUnder("chunks/") - chunksBefore;

        // an asynchronous clone on B pulls it: the pull is a step of its progress and of its timings
        var accepted = hostB.post("/v1/sandboxes?async=true", cloneRequest(snapshotId, "moved-1"));
        assertThat(accepted.status()).as(accepted.body().toString()).isEqualTo(202);
        JsonNode done = hostB.awaitOperation(accepted.body().path("id").asText(), running -> { });
        assertThat(done.path("state").asText()).as(done.toString()).isEqualTo("succeeded");
        assertThat(done.path("result").path("timingsMs").path("pull").isNumber()).as(done.toString()).isTrue();
        List<JsonNode> events = hostB.events("moved-1", e -> "operation".equals(e.path("type").asText()));
        assertThat(events.getLast().path("timingsMs").path("pull").isNumber()).as(events.getLast().toString()).isTrue();
        assertThat(events).as("progress of the clone").anySatisfy(e -> {
            assertThat(e.path("progress").path("step").asText()).isEqualTo("pull");
            assertThat(e.path("progress").path("bytesTotal").asLong()).isPositive();
        });
        assertSameTree(durable, hostB.stateDir().resolve("sandboxes/moved-1/durable/data"));
        assertSameTree(hostA.stateDir().resolve("snapshots").resolve(snapshotId), hostB.stateDir().resolve("snapshots").resolve(snapshotId));
        assertThat(hostB.delete("/v1/sandboxes/moved-1?deleteSnapshots=true").status()).isEqualTo(204);

        // a small change: the next push sends a little, the store holds little more than one snapshot
        assertThat(hostA.post("/v1/sandboxes/move-1/resume", "{}").status()).isEqualTo(200);
        Files.writeString(durable.resolve("notes.txt"), "changed on host A, a little longer");
        String second = suspend(hostA, "move-1");
        JsonNode secondPush = awaitPushed(hostA, second);
        double sent = secondPush.path("bytesUploaded").asDouble() / firstPush.path("bytesUploaded").asDouble();
        double held = (double) (store.bytesUnder("chunks/") - chunksBefore) / oneSnapshot;
        System.out.printf("%s: the second push sent %.3f of the first; the store holds %.3fx one snapshot%n", kind, sent, held);
        assertThat(sent).isLessThan(0.2);
        assertThat(held).isLessThan(1.2);

        // every host shows the store's one lease verdict
        JsonNode onA = hostA.get("/v1/store").body().path("leaseVerdict");
        assertThat(onA.path("state").asText()).as(onA.toString()).isEqualTo(kind.conditionalWrites().name());
        assertThat(onA.path("recordedBy").asText()).isEqualTo("host-a");
        assertThat(hostB.get("/v1/store").body().path("leaseVerdict")).isEqualTo(onA);

        var gc = hostB.post("/v1/store/gc", "");
        assertThat(gc.status()).as(gc.body().toString()).isEqualTo(200);
        assertThat(gc.body().path("removed")).as("everything is referenced or younger than the grace").isEmpty();
        assertThat(gc.body().path("missing")).isEmpty();
        assertThat(hostA.delete("/v1/sandboxes/move-1?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void aCorruptChunkFailsThePullNamingItAndLeavesNothingBehind() throws Exception {
        String snapshotId = SnapshotStoreDaemonTest.createWriteAndSuspend(hostA, "corrupt-1", "unique " + SnapshotStoreDaemonTest.randomHex());
        awaitPushed(hostA, snapshotId);
        String chunk = firstChunkOf(snapshotId, "durable.tar");
        byte[] bytes = store.get("chunks/" + chunk).orElseThrow();
        bytes[bytes.length / 2] ^= 0x5a;
        store.put("chunks/" + chunk, bytes);

        var clone = hostB.post("/v1/sandboxes", cloneRequest(snapshotId, "corrupt-clone"));
        assertThat(clone.status()).as(clone.body().toString()).isEqualTo(502);
        assertThat(clone.contentType()).startsWith("application/problem+json");
        assertThat(clone.body().path("type").asText()).endsWith("snapshot-store-data-invalid");
        assertThat(clone.body().path("detail").asText()).contains(chunk);
        assertThat(hostB.get("/v1/sandboxes/corrupt-clone").status()).isEqualTo(404);
        assertThat(hostB.stateDir().resolve("sandboxes/corrupt-clone")).doesNotExist();
        assertThat(listNames(hostB.stateDir().resolve("snapshots"))).noneMatch(name -> name.contains(snapshotId));
        assertThat(listNames(hostB.stateDir().resolve("chunks"))).doesNotContain(chunk);
        assertThat(hostA.delete("/v1/sandboxes/corrupt-1?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void aPushCutOffByAnOutageFailsWithoutAManifestAndItsRetrySendsOnlyWhatIsMissing() throws Exception {
        AtomicInteger chunkPuts = new AtomicInteger();
        hostB.createOk(hostA.spec("outage-1", "outage-1")); // B runs the fleet's images, at A's paths
        byte[] data = new byte[12 << 20]; // incompressible and unique: about ten durable chunks of its own
        ThreadLocalRandom.current().nextBytes(data);
        Files.write(hostB.stateDir().resolve("sandboxes/outage-1/durable/data/blob"), data);
        String snapshotId = suspend(hostB, "outage-1");

        Set<String> untouched = chunks();
        front.beforeForwarding((method, path) -> {
            if (method.equals("PUT") && path.contains("/chunks/") && chunkPuts.incrementAndGet() == 3) {
                awaitChunks(untouched.size() + 2);
                front.betweenForwards(() -> store.s3().stop());
            }
        });
        try {
            assertThat(hostB.post("/v1/snapshots/" + snapshotId + "/push", "").status()).isEqualTo(202);
            JsonNode failed = awaitSettled(hostB, snapshotId);
            assertThat(failed.path("state").asText()).as(failed.toString()).isEqualTo("failed");
            assertThat(failed.path("error").asText()).isNotEmpty();
        } finally {
            front.beforeForwarding((method, path) -> { });
            store.s3().restart();
        }
        assertThat(store.list("snapshots/" + snapshotId + "/")).as("no manifest: the snapshot is absent").isEmpty();
        Set<String> storedBefore = chunks();
        assertThat(storedBefore.size() - untouched.size()).as("chunks the cut-off push stored").isGreaterThanOrEqualTo(2);
        // a server that writes objects in place (s3rver) keeps the one it was killed writing, truncated: the retry must
        // not count it as stored
        Set<String> cutOff = new HashSet<>(storedBefore);
        cutOff.removeAll(untouched); // what this push stored (another test leaves a chunk it flipped on purpose)
        Set<String> damaged = damaged(cutOff);
        System.out.printf("%s: the outage left %d damaged chunks%n", kind, damaged.size());

        front.beforeForwarding((method, path) -> {
            if (method.equals("PUT") && path.contains("/chunks/")) chunkPuts.incrementAndGet();
        });
        try {
            chunkPuts.set(0);
            assertThat(hostB.post("/v1/snapshots/" + snapshotId + "/push", "").status()).isEqualTo(202);
            JsonNode pushed = awaitPushed(hostB, snapshotId);
            Set<String> storedAfter = chunks();
            assertThat(storedAfter).containsAll(storedBefore);
            assertThat(chunkPuts.get()).as("chunk PUTs of the retry: only the chunks the store lacked or held damaged")
                    .isEqualTo(storedAfter.size() - storedBefore.size() + damaged.size()).isPositive();
            storedAfter.removeAll(untouched);
            assertThat(damaged(storedAfter)).as("damaged chunks of this snapshot after the retry").isEmpty();
            assertThat(pushed.path("bytesDeduplicated").asLong()).as(pushed.toString()).isPositive();
        } finally {
            front.beforeForwarding((method, path) -> { });
        }
        assertThat(hostA.get("/v1/snapshots/" + snapshotId).body().path("remote").path("state").asText()).isEqualTo("pushed");
        assertThat(hostB.delete("/v1/sandboxes/outage-1?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void anAdoptIsRefusedBeforeAnyPullWhereLeasesAreNotHonouredAndMovesTheSandboxWithLeasesOff() throws Exception {
        String notes = "moves with its identity " + SnapshotStoreDaemonTest.randomHex();
        String snapshotId = SnapshotStoreDaemonTest.createWriteAndSuspend(hostA, "adopt-1", notes);
        awaitPushed(hostA, snapshotId);
        String uid = hostA.get("/v1/sandboxes/adopt-1").body().path("identity").path("uid").asText();
        // gone from A (its snapshots too), kept in the store: A would have to pull it to adopt it
        assertThat(hostA.delete("/v1/sandboxes/adopt-1?deleteSnapshots=true").status()).isEqualTo(204);
        ObjectNode adopt = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshotId).put("adopt", true);

        double downloaded = downloadedBytes(hostA);
        var refused = hostA.post("/v1/sandboxes", adopt);
        assertThat(refused.status()).as(refused.body().toString()).isEqualTo(409);
        assertThat(refused.body().path("type").asText()).endsWith("leases-unavailable");
        assertThat(refused.body().path("detail").asText()).contains("snapshot-store-leases").contains(kind.conditionalWrites().name())
                .contains("nothing was pulled");
        assertThat(downloadedBytes(hostA)).as("bytes downloaded by the refused adopt").isEqualTo(downloaded);
        assertThat(listNames(hostA.stateDir().resolve("snapshots"))).as("snapshots and staging dirs").noneMatch(n -> n.contains(snapshotId));
        assertThat(listNames(hostA.stateDir().resolve("chunks"))).as("chunk cache").isEmpty();
        assertThat(hostA.get("/v1/sandboxes/adopt-1").status()).isEqualTo(404);
        assertThat(hostA.stateDir().resolve("sandboxes/adopt-1")).doesNotExist();

        var adopted = hostB.post("/v1/sandboxes", adopt);
        assertThat(adopted.status()).as(adopted.body().toString()).isEqualTo(201);
        JsonNode sandbox = adopted.body().path("sandbox");
        assertThat(sandbox.path("id").asText()).isEqualTo("adopt-1");
        assertThat(sandbox.path("state").asText()).isEqualTo("RUNNING");
        assertThat(sandbox.path("identity").path("uid").asText()).isEqualTo(uid);
        assertThat(Files.readString(hostB.stateDir().resolve("sandboxes/adopt-1/durable/data/notes.txt"))).isEqualTo(notes);
        assertThat(store.list("leases/")).as("leases off: none taken").isEmpty();
        assertThat(hostB.delete("/v1/sandboxes/adopt-1?deleteSnapshots=true").status()).isEqualTo(204);
    }

    // ------------------------------------------------------------------ helpers

    private static String suspend(DaemonHarness host, String id) throws Exception {
        var suspended = host.post("/v1/sandboxes/" + id + "/suspend", "{}");
        assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
        return suspended.body().path("snapshotId").asText();
    }

    /** A durable tree with what archives get wrong: a name that is not UTF-8, modes, an empty file, a symlink, a subdir. */
    private static void writeAwkwardTree(Path durable) throws Exception {
        Files.writeString(durable.resolve("notes.txt"), "written on host A " + SnapshotStoreDaemonTest.randomHex());
        Path secret = Files.writeString(durable.resolve("secret.txt"), "0640");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-r-----"));
        Files.createFile(durable.resolve("empty"));
        Files.createSymbolicLink(durable.resolve("link"), Path.of("notes.txt"));
        Files.writeString(Files.createDirectories(durable.resolve("sub/deeper")).resolve("file"), "deep");
        run("sh", "-c", "printf 'latin-1' > \"$1/$(printf 'caf\\351')\"", "sh", durable.toString());
    }

    /** Two trees hold the same names (as bytes), types, modes, sizes, link targets and contents. */
    private static void assertSameTree(Path expected, Path actual) throws Exception {
        assertThat(run("sh", "-c", "cd \"$1\" && find . -printf '%P|%y|%m|%s|%l\\n' | LC_ALL=C sort", "sh", actual.toString()))
                .isEqualTo(run("sh", "-c", "cd \"$1\" && find . -printf '%P|%y|%m|%s|%l\\n' | LC_ALL=C sort", "sh", expected.toString()));
        run("diff", "-r", "--no-dereference", expected.toString(), actual.toString());
    }

    /** Runs a command; its output, or an assertion error with it when it fails. */
    private static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
        return output;
    }

    private String firstChunkOf(String snapshotId, String file) throws IOException {
        JsonNode manifest = ApiJson.mapper().readTree(store.get("snapshots/" + snapshotId + "/manifest.json").orElseThrow());
        for (JsonNode entry : (ArrayNode) manifest.path("files")) {
            if (entry.path("path").asText().equals(file)) return entry.path("chunks").get(0).path("sha256").asText();
        }
        throw new AssertionError(file + " not in the manifest of " + snapshotId);
    }

    /** The chunks the store holds that do not decompress to bytes of their name's hash. */
    private static Set<String> damaged(Set<String> chunks) throws Exception {
        Set<String> damaged = new HashSet<>();
        for (String chunk : chunks) {
            byte[] frame = store.get("chunks/" + chunk).orElseThrow();
            try {
                long size = Zstd.getFrameContentSize(frame); // throws on a frame cut short before its header's end (even empty)
                byte[] plain = size < 0 || size > (16 << 20) ? null : Zstd.decompress(frame, (int) size);
                if (plain == null || !HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(plain)).equals(chunk)) {
                    damaged.add(chunk);
                }
            } catch (RuntimeException corrupt) {
                damaged.add(chunk);
            }
        }
        return damaged;
    }

    private static Set<String> chunks() {
        Set<String> names = new HashSet<>();
        for (String key : store.list("chunks/")) {
            String name = key.substring(key.lastIndexOf('/') + 1);
            if (name.matches("[0-9a-f]{64}")) names.add(name);
        }
        return names;
    }

    /** Waits (bounded) until the store holds {@code count} chunks. */
    private static void awaitChunks(int count) {
        try {
            for (int i = 0; i < 200 && chunks().size() < count; i++) Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static List<String> listNames(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        if (!Files.isDirectory(dir)) return names;
        try (var entries = Files.list(dir)) {
            entries.forEach(p -> names.add(p.getFileName().toString()));
        }
        return names;
    }
}
