package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.json.ApiJson;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a test does with a running test daemon: its HTTP API, guest specs for the none backend, waits, its dirs. Both
 * {@link DaemonHarness} (a daemon a test starts and closes itself) and {@link DaemonExtension} (one daemon for a class) are one.
 */
abstract class DaemonApi {
    private final HttpClient http = HttpClient.newHttpClient();

    /** The root dir the daemon's state and run dirs, image root and hostDirectory root are in. */
    abstract Path root();

    /** The port the daemon's API listens on (loopback). */
    abstract int port();

    /** The daemon's API token. */
    abstract String token();

    /** A guest "image" for the none backend: files that exist, a rootfs dir. */
    ObjectNode spec(String id, String name) throws IOException {
        return NoneBackendSpec.of(DaemonHarness.imageDir(root()), id, name, "tests", "name", "uid");
    }

    Response post(String path, Object body) throws Exception {
        String json = body instanceof String s ? s : ApiJson.mapper().writeValueAsString(body);
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)), true);
    }

    /** POST /v1/sandboxes expecting 201; a failure shows the problem document. */
    Response createOk(Object spec) throws Exception {
        Response res = post("/v1/sandboxes", spec);
        assertThat(res.status()).as("create: %s", res.body()).isEqualTo(201);
        return res;
    }

    Response get(String path) throws Exception { return send(HttpRequest.newBuilder(uri(path)).GET(), true); }

    /** A GET whose answer is not JSON (metrics). */
    String getText(String path) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + token()).GET().build();
        return http.send(req, HttpResponse.BodyHandlers.ofString()).body();
    }

    Response delete(String path) throws Exception { return send(HttpRequest.newBuilder(uri(path)).DELETE(), true); }

    Response send(HttpRequest.Builder req, boolean authenticated) throws Exception {
        if (authenticated) req.header("Authorization", "Bearer " + token());
        HttpResponse<String> res = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
        JsonNode body = res.body().isEmpty() ? ApiJson.mapper().createObjectNode() : ApiJson.mapper().readTree(res.body());
        return new Response(res.statusCode(), res.headers().firstValue("content-type").orElse(""), body);
    }

    /** The Prometheus text of {@code /metrics}. */
    String metrics() throws Exception {
        return http.send(HttpRequest.newBuilder(uri("/metrics")).header("Authorization", "Bearer " + token()).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The value of an unlabelled metric, or -1 when absent. */
    double metric(String name) throws Exception {
        return PrometheusText.value(metrics(), name).orElse(-1);
    }

    /**
     * Waits (up to a minute) until no sandbox has processes being stopped after its suspend answered: a suspended
     * sandbox's record names its runtime until they are stopped.
     */
    void awaitTeardowns() throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (hasSuspendedWithRuntime()) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("a suspended sandbox's processes were not stopped");
            Thread.sleep(10);
        }
    }

    private boolean hasSuspendedWithRuntime() throws Exception {
        for (var sandbox : get("/v1/sandboxes").body().path("items")) {
            if (sandbox.path("state").asText().equals("SUSPENDED") && sandbox.has("runtime")) return true;
        }
        return false;
    }

    /** Waits (up to a minute) until the VMM pool holds as many idle members as it keeps, so no member is half-started. */
    void awaitPoolFull() throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (metric("ateom_vmm_pool_ready") < metric("ateom_vmm_pool_size")) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("the VMM pool did not fill: " + metrics());
            Thread.sleep(20);
        }
    }

    /**
     * Deletes every sandbox but {@code kept}, with its snapshots, whatever its state (a delete finishes any): so a test
     * that failed half-way does not fail the ones after it.
     */
    void deleteAllSandboxesBut(String... kept) throws Exception {
        List<String> keep = List.of(kept);
        for (JsonNode sandbox : get("/v1/sandboxes").body().path("items")) {
            String id = sandbox.path("id").asText();
            if (!keep.contains(id)) delete("/v1/sandboxes/" + id + "?deleteSnapshots=true");
        }
    }

    /** Nothing runs but the runtime's own CHV and virtiofsd (and the pool's idle members, once it is full again). */
    void assertOnlyProcessesOf(JsonNode runtime) throws Exception {
        awaitPoolFull();
        assertThat(TestTools.leakedChildrenBesides(TestTools.processesOf(runtime))).isEmpty();
    }

    /** A clone of {@code snapshot} named {@code id}, its identity's name the id, in namespace "tests". */
    static ObjectNode cloneRequest(String snapshot, String id) {
        ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshot).put("id", id);
        clone.putObject("identity").put("name", id).put("namespace", "tests");
        return clone;
    }

    URI uri(String path) { return URI.create("http://127.0.0.1:" + port() + path); }

    Path stateDir() { return root().resolve("state"); }

    Path runDir() { return root().resolve("run"); }

    record Response(int status, String contentType, JsonNode body) {}

    /** Polls an asynchronous operation (bounded, a minute) until it is no longer running; {@code running} sees each running state. */
    JsonNode awaitOperation(String id, Consumer<JsonNode> running) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            var res = get("/v1/operations/" + id);
            assertThat(res.status()).as(res.body().toString()).isEqualTo(200);
            if (!"running".equals(res.body().path("state").asText())) return res.body();
            running.accept(res.body());
            Thread.sleep(5);
        }
        throw new AssertionError("operation " + id + " did not finish in a minute");
    }

    /**
     * A sandbox's events from the start of the ring up to the first that passes {@code last}; an assertion error if none
     * does within a minute (the stream stays open for live events: it is read on a thread of its own and closed then).
     */
    List<JsonNode> events(String sandbox, Predicate<JsonNode> last) throws Exception {
        List<JsonNode> out = new CopyOnWriteArrayList<>();
        HttpResponse<Stream<String>> res = http.send(HttpRequest.newBuilder(uri("/v1/events?since=0&sandbox=" + sandbox))
                .header("Authorization", "Bearer " + token()).GET().build(), HttpResponse.BodyHandlers.ofLines());
        Stream<String> lines = res.body();
        CompletableFuture<Boolean> found = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                Iterator<String> it = lines.iterator();
                while (it.hasNext()) {
                    String line = it.next();
                    if (!line.startsWith("data: ")) continue;
                    JsonNode event = ApiJson.mapper().readTree(line.substring(6));
                    out.add(event);
                    if (last.test(event)) {
                        found.complete(true);
                        return;
                    }
                }
                found.complete(false);
            } catch (IOException | RuntimeException e) {
                found.completeExceptionally(e);
            }
        });
        try {
            if (found.get(60, TimeUnit.SECONDS)) return List.copyOf(out);
        } catch (TimeoutException e) {
            // fall through: not found in time
        } finally {
            lines.close();
        }
        throw new AssertionError("no event of " + sandbox + " ended the wait within a minute; seen: " + out);
    }
}
