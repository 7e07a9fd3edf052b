package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.microvm.json.ApiJson;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Reads one sandbox's events of a daemon from its first (still in the ring) up to the one a test waits for. */
final class SandboxEvents {
    private SandboxEvents() {}

    /** Every event of {@code sandboxId} from the start up to and including the first that matches {@code last}. */
    static List<JsonNode> upTo(DaemonApi daemon, String sandboxId, Predicate<JsonNode> last) throws Exception {
        BlockingQueue<JsonNode> queue = new LinkedBlockingQueue<>();
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<Stream<String>> res = http.send(HttpRequest.newBuilder(daemon.uri("/v1/events?since=0&sandbox=" + sandboxId))
                    .header("Authorization", "Bearer " + daemon.token()).GET().build(), HttpResponse.BodyHandlers.ofLines());
            assertThat(res.statusCode()).isEqualTo(200);
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    res.body().filter(line -> line.startsWith("data: ")).forEach(line -> queue.add(parse(line.substring(6))));
                } catch (RuntimeException e) {
                    // the stream was closed below
                }
            });
            try {
                List<JsonNode> seen = new ArrayList<>();
                while (true) {
                    JsonNode event = queue.poll(30, TimeUnit.SECONDS);
                    assertThat(event).as("the awaited event of %s after %s", sandboxId, seen).isNotNull();
                    seen.add(event);
                    if (last.test(event)) return seen;
                }
            } finally {
                res.body().close();
                reader.interrupt();
            }
        }
    }

    /** An event in a few words: {@code type operation [old->new] [succeeded]}, for readable assertions. */
    static String describe(JsonNode e) {
        String type = e.path("type").asText();
        return switch (type) {
            case "state" -> type + " " + e.path("oldState").asText("null") + "->" + e.path("newState").asText("null") + " "
                    + e.path("operation").asText();
            case "operation" -> type + " " + e.path("operation").asText() + " " + e.path("succeeded").asBoolean();
            default -> type + " " + e.path("operation").asText("");
        };
    }

    private static JsonNode parse(String json) {
        try {
            return ApiJson.mapper().readTree(json);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
