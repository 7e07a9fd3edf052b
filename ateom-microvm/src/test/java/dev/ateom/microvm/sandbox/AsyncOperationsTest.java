package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.Main;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.timing.FailPoints;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ?async=true} against an in-process daemon (CHV stand-in, {@code none} backend): a suspend of a 1 GiB durable
 * dir reports growing bytes and ends with the synchronous answer, a failing one with the synchronous problem, the
 * operation resource goes when fetched or expired, clone and fork run asynchronously, and bad requests are still
 * answered synchronously. Finished operations are kept 2 s here (a fetched one 1 s more).
 */
class AsyncOperationsTest {
    private static final int FILES = 8;
    private static final int FILE_MIB = 128;

    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of(ConfigOption.OPERATION_RETENTION_SECONDS, "2"));

    @AfterEach
    void disarmAndDeleteAll() throws Exception {
        FailPoints.disarmAll();
        daemon.deleteAllSandboxesBut();
    }

    @Test
    void aSuspendOfAGibibyteReportsGrowingBytesThenTheAnswerOfASynchronousSuspend() throws Exception {
        daemon.createOk(daemon.spec("as-big", "as-big"));
        writeFiles(daemon.stateDir().resolve("sandboxes/as-big/durable/data"));

        var accepted = daemon.post("/v1/sandboxes/as-big/suspend?async=true", "{}");
        assertThat(accepted.status()).as(accepted.body().toString()).isEqualTo(202);
        String id = accepted.body().path("id").asText();
        assertThat(id).startsWith("op-");
        assertThat(accepted.body().path("operation").asText()).isEqualTo("suspend");
        assertThat(accepted.body().path("sandboxId").asText()).isEqualTo("as-big");

        List<Long> archived = new ArrayList<>();
        JsonNode finished = pollUntilFinished(id, status -> {
            if ("archive".equals(status.path("step").asText()) && status.has("bytesDone")) {
                long done = status.path("bytesDone").asLong();
                if (archived.isEmpty() || archived.getLast() != done) archived.add(done);
                assertThat(status.path("bytesTotal").asLong()).as("the pre-counted total").isEqualTo((long) FILES * FILE_MIB << 20);
            }
        });
        assertThat(archived).as("bytes done while archiving").hasSizeGreaterThanOrEqualTo(2).isSorted().doesNotHaveDuplicates();
        assertThat(finished.path("state").asText()).isEqualTo("succeeded");
        assertThat(finished.path("status").asInt()).isEqualTo(200);
        assertThat(archived.getLast()).as("the last bytes reported by the archive").isEqualTo((long) FILES * FILE_MIB << 20);
        assertThat(finished.has("finishedAt")).isTrue();
        JsonNode result = finished.path("result");
        assertThat(result.path("sandbox").path("state").asText()).isEqualTo("SUSPENDED");
        assertThat(result.path("snapshotId").asText()).isEqualTo(daemon.get("/v1/sandboxes/as-big").body().path("latestSnapshotId").asText());

        // the same fields as the answer of a synchronous suspend
        daemon.createOk(daemon.spec("as-sync", "as-sync"));
        JsonNode sync = daemon.post("/v1/sandboxes/as-sync/suspend", "{}").body();
        assertThat(result.fieldNames()).toIterable().containsExactlyElementsOf(() -> sync.fieldNames());
        assertThat(result.path("timingsMs").fieldNames()).toIterable().containsExactlyElementsOf(() -> sync.path("timingsMs").fieldNames());

        List<JsonNode> progress = events("as-big", e -> "operation".equals(e.path("type").asText())
                && "suspend".equals(e.path("operation").asText())).stream()
                .filter(e -> "progress".equals(e.path("type").asText())).toList();
        assertThat(progress).allMatch(e -> id.equals(e.path("progress").path("operationId").asText()));
        assertThat(progress).anyMatch(e -> "archive".equals(e.path("progress").path("step").asText())
                && e.path("progress").path("bytesDone").asLong() > 0);
        assertThat(progress).as("steps").extracting(e -> e.path("progress").path("step").asText()).contains("pause", "snapshot", "commit");
    }

    @Test
    void aFailingAsyncSuspendEndsWithTheProblemAndStateOfAFailingSynchronousOne() throws Exception {
        daemon.createOk(daemon.spec("as-fail", "as-fail"));
        FailPoints.failOnce("suspend.archive");
        var syncFailure = daemon.post("/v1/sandboxes/as-fail/suspend", "{}");
        assertThat(syncFailure.status()).isEqualTo(500);
        String stateAfterSync = daemon.get("/v1/sandboxes/as-fail").body().path("state").asText();

        FailPoints.failOnce("suspend.archive");
        var accepted = daemon.post("/v1/sandboxes/as-fail/suspend?async=true", "{}");
        assertThat(accepted.status()).isEqualTo(202);
        JsonNode finished = pollUntilFinished(accepted.body().path("id").asText(), status -> { });
        assertThat(finished.path("state").asText()).isEqualTo("failed");
        assertThat(finished.path("status").asInt()).isEqualTo(500);
        assertThat(finished.has("result")).isFalse();
        JsonNode problem = finished.path("problem");
        for (String field : List.of("type", "title", "status", "detail", "instance", "sandboxId", "state")) {
            assertThat(problem.path(field)).as(field).isEqualTo(syncFailure.body().path(field));
        }
        assertThat(daemon.get("/v1/sandboxes/as-fail").body().path("state").asText()).isEqualTo(stateAfterSync).isEqualTo("RUNNING");
    }

    @Test
    void aFinishedOperationIsKeptUntilFetchedOrExpiredThenNotFound() throws Exception {
        daemon.createOk(daemon.spec("as-keep", "as-keep"));
        String unfetched = daemon.post("/v1/sandboxes/as-keep/checkpoint?async=true", "{}").body().path("id").asText();
        // the list does not count as fetching: the operation finishes and stays listed until its time to live is over
        JsonNode listed = awaitListed(unfetched, op -> !"running".equals(op.path("state").asText()));
        assertThat(listed.path("state").asText()).isEqualTo("succeeded");
        awaitListed(unfetched, op -> op.isMissingNode());
        assertNotFound(unfetched);

        String fetched = daemon.post("/v1/sandboxes/as-keep/checkpoint?async=true", "{}").body().path("id").asText();
        pollUntilFinished(fetched, status -> { });
        assertThat(daemon.get("/v1/operations/" + fetched).status()).as("fetched again within the grace").isEqualTo(200);
        awaitListed(fetched, op -> op.isMissingNode());
        assertNotFound(fetched);
        assertNotFound("op-never-was");
    }

    @Test
    void asyncCloneAndForkAreAcceptedAndFinishLikeTheirSynchronousCalls() throws Exception {
        daemon.createOk(daemon.spec("as-src", "as-src"));
        String snapshotId = daemon.post("/v1/sandboxes/as-src/checkpoint", "{}").body().path("snapshotId").asText();

        ObjectNode clone = ApiJson.mapper().createObjectNode().put("id", "as-clone").put("fromSnapshot", snapshotId);
        clone.putObject("identity").put("name", "as-clone").put("namespace", "tests");
        var accepted = daemon.post("/v1/sandboxes?async=true", clone);
        assertThat(accepted.status()).as(accepted.body().toString()).isEqualTo(202);
        assertThat(accepted.body().path("operation").asText()).isEqualTo("clone");
        JsonNode cloned = pollUntilFinished(accepted.body().path("id").asText(), status -> { });
        assertThat(cloned.path("state").asText()).as(cloned.toString()).isEqualTo("succeeded");
        assertThat(cloned.path("status").asInt()).isEqualTo(201);
        assertThat(cloned.path("result").path("sandbox").path("state").asText()).isEqualTo("RUNNING");
        assertThat(cloned.path("result").path("sandbox").path("sourceSnapshotId").asText()).isEqualTo(snapshotId);

        var fork = daemon.post("/v1/sandboxes/as-src/fork?async=true", "{\"count\": 1, \"namePrefix\": \"as-w\"}");
        assertThat(fork.status()).as(fork.body().toString()).isEqualTo(202);
        JsonNode forked = pollUntilFinished(fork.body().path("id").asText(), status -> { });
        assertThat(forked.path("state").asText()).as(forked.toString()).isEqualTo("succeeded");
        assertThat(forked.path("result").path("succeeded").asInt()).isEqualTo(1);
        assertThat(forked.path("step").asText()).isEqualTo("clones");
        assertThat(daemon.get("/v1/sandboxes/as-w-1").body().path("state").asText()).isEqualTo("RUNNING");
    }

    @Test
    void badRequestsAreStillAnsweredSynchronously() throws Exception {
        daemon.createOk(daemon.spec("as-bad", "as-bad"));
        // an earlier test's operations may still be retained (2 s, and may expire meanwhile): a new one means one was admitted
        List<String> before = operationIds();
        var zero = daemon.post("/v1/sandboxes/as-bad/fork?async=true", "{\"count\": 0}");
        assertThat(zero.status()).isEqualTo(400);
        assertThat(zero.body().path("errors").get(0).path("field").asText()).isEqualTo("count");
        assertThat(daemon.post("/v1/sandboxes/as-bad/checkpoint?name=as-taken", "{}").status()).isEqualTo(200);
        var taken = daemon.post("/v1/sandboxes/as-bad/suspend?async=true&name=as-taken", "{}");
        assertThat(taken.status()).as(taken.body().toString()).isEqualTo(409);
        assertThat(taken.body().path("type").asText()).endsWith("/snapshot-name-taken");
        assertThat(daemon.post("/v1/sandboxes/as-bad/suspend", "{}").status()).isEqualTo(200);
        var notRunning = daemon.post("/v1/sandboxes/as-bad/checkpoint?async=true", "{}");
        assertThat(notRunning.status()).isEqualTo(409);
        assertThat(notRunning.body().path("type").asText()).endsWith("/invalid-state");
        assertThat(daemon.post("/v1/sandboxes/nobody/suspend?async=true", "{}").status()).isEqualTo(404);
        ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", "as-bad-00000000");
        clone.putObject("identity").put("name", "x").put("namespace", "tests");
        assertThat(daemon.post("/v1/sandboxes?async=true", clone).status()).isEqualTo(404);
        assertThat(daemon.post("/v1/sandboxes/as-bad/suspend?async=maybe", "{}").status()).isEqualTo(400);
        assertThat(operationIds()).as("nothing was admitted").isSubsetOf(before);
    }

    private static List<String> operationIds() throws Exception {
        List<String> ids = new ArrayList<>();
        daemon.get("/v1/operations").body().path("items").forEach(op -> ids.add(op.path("id").asText()));
        return ids;
    }

    @Test
    void theCliWaitsForTheOperationAndPrintsWhatTheSynchronousCallAnswers() throws Exception {
        daemon.createOk(daemon.spec("as-cli", "as-cli"));
        Cli suspended = cli("suspend", "as-cli");
        assertThat(suspended.exitCode()).as(suspended.out()).isZero();
        JsonNode result = ApiJson.mapper().readTree(suspended.out());
        assertThat(result.path("sandbox").path("state").asText()).isEqualTo("SUSPENDED");
        assertThat(result.path("snapshotId").asText()).isEqualTo(daemon.get("/v1/sandboxes/as-cli").body().path("latestSnapshotId").asText());
        assertThat(result.has("state")).as("the answer, not the operation").isFalse();

        Cli wrongState = cli("checkpoint", "as-cli");
        assertThat(wrongState.exitCode()).as("wrong state").isEqualTo(5);
        assertThat(daemon.post("/v1/sandboxes/as-cli/resume", "{}").status()).isEqualTo(200);
        FailPoints.failOnce("checkpoint.archive");
        Cli failed = cli("checkpoint", "as-cli");
        assertThat(failed.exitCode()).as("a failed operation is an API error").isEqualTo(1);
        assertThat(ApiJson.mapper().readTree(failed.out()).path("type").asText()).endsWith("/checkpoint-failed");
    }

    record Cli(int exitCode, String out) {}

    /** {@code ateom <args> -o json} against the daemon, its stdout captured (stderr is no terminal: no progress bar). */
    private static Cli cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--url", daemon.uri("").toString(), "--token-file", daemon.stateDir().resolve("api-token").toString(), "-o", "json"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            return new Cli(Main.commandLine().execute(all.toArray(String[]::new)), out.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(stdout);
        }
    }

    /** Polls the operation every few milliseconds, handing each running view to {@code running}, until it finished. */
    private static JsonNode pollUntilFinished(String id, Consumer<JsonNode> running) throws Exception {
        return daemon.awaitOperation(id, running);
    }

    /** Lists the operations until the one with {@code id} (missing node when absent) passes {@code until}. */
    private static JsonNode awaitListed(String id, Predicate<JsonNode> until) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            JsonNode op = ApiJson.mapper().missingNode();
            for (JsonNode item : daemon.get("/v1/operations").body().path("items")) {
                if (id.equals(item.path("id").asText())) op = item;
            }
            if (until.test(op)) return op;
            Thread.sleep(50);
        }
        throw new AssertionError("operation " + id + " did not reach the expected listing in 30 s");
    }

    private static void assertNotFound(String id) throws Exception {
        var res = daemon.get("/v1/operations/" + id);
        assertThat(res.status()).isEqualTo(404);
        assertThat(res.contentType()).startsWith("application/problem+json");
        assertThat(res.body().path("detail").asText()).contains(id);
    }

    /** The sandbox's events from the start of the ring up to the first that passes {@code last}. */
    private static List<JsonNode> events(String sandbox, Predicate<JsonNode> last) throws Exception {
        return daemon.events(sandbox, last);
    }

    /** {@link #FILES} files of {@link #FILE_MIB} MiB of random bytes (no holes, nothing a filesystem could share). */
    private static void writeFiles(Path durable) throws Exception {
        byte[] mib = new byte[1 << 20];
        new Random(16).nextBytes(mib);
        for (int f = 0; f < FILES; f++) {
            try (FileChannel out = FileChannel.open(durable.resolve("blob-" + f), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                for (int i = 0; i < FILE_MIB; i++) {
                    mib[0] = (byte) f;
                    mib[1] = (byte) i;
                    ByteBuffer buffer = ByteBuffer.wrap(mib);
                    while (buffer.hasRemaining()) out.write(buffer);
                }
            }
        }
    }
}
