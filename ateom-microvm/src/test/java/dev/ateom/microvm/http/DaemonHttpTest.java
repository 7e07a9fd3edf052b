package dev.ateom.microvm.http;

import dev.ateom.microvm.json.ApiJson;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.microvm.Daemon;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.config.DaemonConfigLoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DaemonHttpTest {
    @TempDir static Path dir;
    static Daemon daemon;
    static String token;
    static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws IOException {
        Files.createDirectories(dir.resolve("images/rootfs"));
        Files.writeString(dir.resolve("images/vmlinux"), "not a kernel");
        daemon = Daemon.start(new DaemonConfigLoader(Map.of(
                ConfigOption.IMAGE_ROOTS, dir.resolve("images").toString(),
                ConfigOption.PORT, "0",
                ConfigOption.STATE_DIR, dir.resolve("state").toString(),
                ConfigOption.RUN_DIR, dir.resolve("run").toString(),
                ConfigOption.MAX_REQUEST_BYTES, "4096",
                ConfigOption.CLOUD_HYPERVISOR, dir.resolve("no-such-chv").toString(),
                ConfigOption.CONFIG, Files.writeString(dir.resolve("empty.yaml"), "").toString()), Map.of()).load());
        token = Files.readString(dir.resolve("state/api-token")).strip();
    }

    @AfterAll
    static void stop() { daemon.close(); }

    @Test
    void tokenFileIsCreatedOwnerOnly() throws IOException {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("state/api-token")))).isEqualTo("rw-------");
        assertThat(token).hasSize(64);
    }

    @Test
    void healthNeedsNoToken() throws Exception {
        HttpResponse<String> res = send(HttpRequest.newBuilder(uri("/healthz")).GET(), null);
        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(json(res).get("status").asText()).isEqualTo("ok");
    }

    @Test
    void answersSayHowLongTheDaemonTookForThem() throws Exception {
        for (HttpResponse<String> res : List.of(send(HttpRequest.newBuilder(uri("/healthz")).GET(), null),
                send(HttpRequest.newBuilder(uri("/v1/sandboxes")).GET(), token),
                send(HttpRequest.newBuilder(uri("/v1/sandboxes/nope")).GET(), token))) {
            assertThat(res.headers().firstValue("server-timing")).as(res.uri() + " (" + res.statusCode() + ")")
                    .hasValueSatisfying(v -> assertThat(v).matches("daemon;dur=\\d+\\.\\d{2}"));
        }
    }

    @Test
    void everyOtherRouteNeedsTheToken() throws Exception {
        for (String path : new String[] {"/metrics", "/v1/sandboxes", "/anything"}) {
            HttpResponse<String> missing = send(HttpRequest.newBuilder(uri(path)).GET(), null);
            assertThat(missing.statusCode()).as(path).isEqualTo(401);
            assertThat(missing.headers().firstValue("content-type")).hasValue(Problem.MEDIA_TYPE);
            assertThat(missing.headers().firstValue("www-authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
            assertThat(json(missing).get("title").asText()).isEqualTo("Authentication required");
            HttpResponse<String> wrong = send(HttpRequest.newBuilder(uri(path)).GET(), token.substring(1) + "x");
            assertThat(wrong.statusCode()).as(path).isEqualTo(401);
            assertThat(json(wrong).get("title").asText()).isEqualTo("Invalid token");
        }
    }

    @Test
    void metricsArePrometheusTextWithJvmAndProcessMetrics() throws Exception {
        HttpResponse<String> res = send(HttpRequest.newBuilder(uri("/metrics")).GET(), token);
        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(res.headers().firstValue("content-type").orElseThrow()).startsWith("text/plain");
        assertThat(res.body()).contains("# TYPE jvm_memory_used_bytes gauge").contains("process_cpu_seconds_total");
    }

    @Test
    void unknownRouteIsAProblemDocument() throws Exception {
        HttpResponse<String> res = send(HttpRequest.newBuilder(uri("/v1/nope")).GET(), token);
        assertThat(res.statusCode()).isEqualTo(404);
        JsonNode body = json(res);
        assertThat(body.get("type").asText()).endsWith("/no-such-route");
        assertThat(body.get("detail").asText()).contains("GET /v1/nope");
    }

    @Test
    void oversizedBodyIsRefusedWith413() throws Exception {
        HttpResponse<String> res = send(HttpRequest.newBuilder(uri("/v1/sandboxes"))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"x\":\"" + "a".repeat(5000) + "\"}")), token);
        assertThat(res.statusCode()).isEqualTo(413);
        assertThat(json(res).get("detail").asText()).contains("4096");
    }

    @Test
    void aCreateWithoutHostToolsIsRefusedNamingEachMissingOne() throws Exception {
        // this daemon's virtiofsd is the default path, absent here, and probed in the background after the start
        String spec = """
                {"identity": {"name": "n", "namespace": "ns"}, "vcpus": 1, "memoryMib": 128,
                 "kernel": "%s", "cmdline": "console=ttyS0", "rootfs": "%s"}""".formatted(dir.resolve("images/vmlinux"),
                dir.resolve("images/rootfs"));
        HttpResponse<String> res = send(HttpRequest.newBuilder(uri("/v1/sandboxes")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(spec)), token);
        assertThat(res.statusCode()).as(res.body()).isEqualTo(503);
        assertThat(json(res).get("type").asText()).endsWith("/host-tools-unavailable");
        assertThat(json(res).get("detail").asText()).contains("Cloud Hypervisor not found").contains("virtiofsd at '");
    }

    private static URI uri(String path) { return URI.create("http://127.0.0.1:" + daemon.port() + path); }

    private static HttpResponse<String> send(HttpRequest.Builder req, String bearer) throws Exception {
        if (bearer != null) req.header("Authorization", "Bearer " + bearer);
        return http.send(req.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> res) throws IOException { return ApiJson.mapper().readTree(res.body()); }
}
