package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.timing.FailPoints;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /v1/events} against an in-process daemon (CHV stand-in, {@code none} backend): the lifecycle's events
 * in order, a reconnect with {@code since} that misses nothing, refused ids, and a client that never reads.
 */
class EventsStreamTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of());

    @Test
    void aClientSeesTheLifecycleInOrderAndAReconnectWithSinceMissesNothing() throws Exception {
        List<String> seen = new ArrayList<>();
        long lastId;
        try (EventClient events = EventClient.open("/v1/events?sandbox=ev-1")) {
            daemon.createOk(daemon.spec("ev-1", "ev-1"));
            assertThat(daemon.post("/v1/sandboxes/ev-1/suspend", "{}").status()).isEqualTo(200);
            seen.addAll(events.take(6).stream().map(EventsStreamTest::describe).toList());
            lastId = events.lastId;
        }
        // while nobody listens
        assertThat(daemon.post("/v1/sandboxes/ev-1/resume", "{}").status()).isEqualTo(200);
        assertThat(daemon.delete("/v1/sandboxes/ev-1?deleteSnapshots=true").status()).isEqualTo(204);
        try (EventClient events = EventClient.open("/v1/events?sandbox=ev-1&since=" + lastId)) {
            seen.addAll(events.take(7).stream().map(EventsStreamTest::describe).toList());
        }
        assertThat(seen).containsExactly(
                "state null->CREATING create", "state CREATING->RUNNING create", "operation RUNNING create true",
                "state RUNNING->SUSPENDING suspend", "state SUSPENDING->SUSPENDED suspend", "operation SUSPENDED suspend true",
                "state SUSPENDED->RESUMING resume", "state RESUMING->RUNNING resume", "operation RUNNING resume true",
                "state RUNNING->DELETING delete", "operation null delete true", "deleted DELETING->null delete",
                // nothing else for this sandbox: the next one read is a timeout (take(7) returned 6 + the marker)
                "none");
    }

    @Test
    void aFailedOperationAndACheckpointAreEventsWithTheirErrorAndSnapshot() throws Exception {
        daemon.createOk(daemon.spec("ev-2", "ev-2"));
        try (EventClient events = EventClient.open("/v1/events?sandbox=ev-2")) {
            var checkpoint = daemon.post("/v1/sandboxes/ev-2/checkpoint", "{}");
            JsonNode event = events.take(1).getFirst();
            assertThat(event.path("type").asText()).isEqualTo("operation");
            assertThat(event.path("operation").asText()).isEqualTo("checkpoint");
            assertThat(event.path("snapshotId").asText()).isEqualTo(checkpoint.body().path("snapshotId").asText());
            assertThat(event.path("timingsMs").has("pauseWindow")).isTrue();
            FailPoints.failOnce("suspend.archive");
            assertThat(daemon.post("/v1/sandboxes/ev-2/suspend", "{}").status()).isEqualTo(500);
            List<JsonNode> failed = events.take(3);
            assertThat(failed.stream().map(EventsStreamTest::describe)).containsExactly(
                    "state RUNNING->SUSPENDING suspend", "state SUSPENDING->RUNNING suspend", "operation RUNNING suspend false");
            assertThat(failed.getLast().path("error").asText()).contains("fail point suspend.archive");
        }
        assertThat(daemon.delete("/v1/sandboxes/ev-2?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void badOrExpiredSinceIsAProblem() throws Exception {
        var bad = daemon.get("/v1/events?since=yesterday");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body().path("errors").get(0).path("field").asText()).isEqualTo("since");
        var tooNew = daemon.get("/v1/events?since=999999999");
        assertThat(tooNew.status()).isEqualTo(410);
        assertThat(tooNew.body().path("type").asText()).isEqualTo("https://ateom.dev/problems/events-expired");
        assertThat(tooNew.body().path("detail").asText()).contains("the daemon keeps events");
    }

    /** Prints the suspend with and without a stalled client (a table, not an assertion on time) and checks it finishes. */
    @Test
    void aClientThatNeverReadsDoesNotHoldUpOperations() throws Exception {
        daemon.createOk(daemon.spec("ev-3", "ev-3"));
        long alone = suspendAndResume("ev-3");
        long stalledMs;
        try (Socket stalled = new Socket("127.0.0.1", daemon.port())) {
            stalled.setReceiveBufferSize(1024);
            OutputStream out = stalled.getOutputStream();
            out.write(("GET /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + daemon.token() + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            for (int i = 0; i < 3; i++) suspendAndResume("ev-3"); // events pile up unread
            stalledMs = suspendAndResume("ev-3");
        }
        System.out.printf("%nsuspend+resume of one sandbox (none backend)%n  %-32s %6d ms%n  %-32s %6d ms%n",
                "no events client", alone, "an events client that never reads", stalledMs);
        assertThat(daemon.get("/v1/sandboxes/ev-3").body().path("state").asText()).isEqualTo("RUNNING");
        assertThat(daemon.delete("/v1/sandboxes/ev-3?deleteSnapshots=true").status()).isEqualTo(204);
    }

    private static long suspendAndResume(String id) throws Exception {
        long t0 = System.nanoTime();
        assertThat(daemon.post("/v1/sandboxes/" + id + "/suspend", "{}").status()).isEqualTo(200);
        assertThat(daemon.post("/v1/sandboxes/" + id + "/resume", "{}").status()).isEqualTo(200);
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static String describe(JsonNode e) {
        if (e.isMissingNode()) return "none";
        String type = e.path("type").asText();
        return switch (type) {
            case "operation" -> type + " " + e.path("newState").asText("null") + " " + e.path("operation").asText() + " "
                    + e.path("succeeded").asBoolean();
            default -> type + " " + e.path("oldState").asText("null") + "->" + e.path("newState").asText("null") + " "
                    + e.path("operation").asText();
        };
    }

    /** An SSE client on its own thread, collecting the data of each event. */
    static final class EventClient implements AutoCloseable {
        private final BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();
        private final HttpClient http = HttpClient.newHttpClient();
        private final Thread reader;
        private volatile Stream<String> lines;
        long lastId;

        private EventClient(String path) throws Exception {
            HttpResponse<Stream<String>> res = http.send(HttpRequest.newBuilder(daemon.uri(path))
                    .header("Authorization", "Bearer " + daemon.token()).GET().build(), HttpResponse.BodyHandlers.ofLines());
            assertThat(res.statusCode()).isEqualTo(200);
            assertThat(res.headers().firstValue("content-type")).hasValue("text/event-stream");
            lines = res.body();
            BlockingQueue<Boolean> subscribed = new LinkedBlockingQueue<>();
            reader = Thread.ofVirtual().start(() -> {
                try {
                    lines.forEach(line -> {
                        if (line.startsWith(": events")) subscribed.add(true);
                        if (!line.startsWith("data: ")) return;
                        try {
                            events.add(ApiJson.mapper().readTree(line.substring(6)));
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
                } catch (RuntimeException e) {
                    // closed by the test
                }
            });
            assertThat(subscribed.poll(10, TimeUnit.SECONDS)).as("the stream's opening comment").isTrue();
        }

        static EventClient open(String path) throws Exception { return new EventClient(path); }

        /** The next {@code n} events, or fewer then a missing node if none comes for two seconds. */
        List<JsonNode> take(int n) throws InterruptedException {
            List<JsonNode> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                JsonNode event = events.poll(i == n - 1 && n > 6 ? 2 : 30, TimeUnit.SECONDS);
                if (event == null) {
                    out.add(ApiJson.mapper().missingNode());
                    break;
                }
                lastId = event.path("id").asLong();
                out.add(event);
            }
            return out;
        }

        @Override
        public void close() {
            lines.close();
            reader.interrupt();
            http.close();
        }
    }
}
