package dev.ateom.e2e.container;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shipped image ({@code scripts/build-image.sh}, FROM scratch) run by Testcontainers: the daemon starts with
 * the image's defaults, serves its API on the published port, and explains that Cloud Hypervisor is missing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DaemonContainerTest {

    private static final int API_PORT = 8420;
    private static final String TOKEN_FILE = "/var/lib/ateom/api-token";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static GenericContainer<?> daemon;
    private static HttpClient http;
    private static URI base;

    @BeforeAll
    static void startDaemonContainer() throws Exception {
        DockerEngine.require();
        DaemonImage.ensureBuilt();
        daemon = new GenericContainer<>(DaemonImage.NAME)
                .withExposedPorts(API_PORT)
                // the placeholder guest below is the only image the daemon may hand to a guest
                .withEnv("ATEOM_IMAGE_ROOTS", "/srv/guest")
                // placeholder guest files: the spec validator wants them to exist; nothing boots without CHV
                .withCopyToContainer(Transferable.of("placeholder kernel"), "/srv/guest/vmlinux")
                .withCopyToContainer(Transferable.of("placeholder initramfs"), "/srv/guest/initramfs.cpio.gz")
                .withCopyToContainer(Transferable.of("guest\n"), "/srv/guest/rootfs/etc/hostname")
                .waitingFor(Wait.forHttp("/healthz").forPort(API_PORT).forStatusCode(200)
                        .withStartupTimeout(Duration.ofSeconds(90)));
        daemon.start();
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        base = URI.create("http://" + daemon.getHost() + ":" + daemon.getMappedPort(API_PORT));
    }

    @AfterAll
    static void removeDaemonContainer() {
        // Ryuk is off (no registry for its image): stop() removes the container and its volumes
        if (daemon != null) daemon.stop();
    }

    @Test
    void healthzAnswersWithoutToken() throws Exception {
        HttpResponse<String> response = send(get("/healthz"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(response.body()).path("status").asText()).isEqualTo("ok");
    }

    @Test
    void metricsWithoutTokenIsRefusedAsProblem() throws Exception {
        HttpResponse<String> response = send(get("/metrics"));

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(JSON.readTree(response.body()).path("status").asInt()).isEqualTo(401);
    }

    @Test
    void metricsWithTheContainersTokenServeJvmMetrics() throws Exception {
        HttpResponse<String> response = send(authorized(get("/metrics")));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("jvm_memory_used_bytes", "jvm_threads_current");
    }

    @Test
    void createAnswers503NamingTheCloudHypervisorOption() throws Exception {
        String spec = """
                {"id": "agent-1", "identity": {"name": "agent-1", "namespace": "team-a"},
                 "vcpus": 1, "memoryMib": 256,
                 "kernel": "/srv/guest/vmlinux", "initramfs": "/srv/guest/initramfs.cpio.gz",
                 "cmdline": "console=ttyS0 quiet", "rootfs": "/srv/guest/rootfs", "durableDirs": ["data"],
                 "readiness": {"type": "none"}}""";
        HttpResponse<String> response = send(authorized(HttpRequest.newBuilder(base.resolve("/v1/sandboxes"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(spec))));

        assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        String detail = JSON.readTree(response.body()).path("detail").asText();
        assertThat(detail).contains("--cloud-hypervisor", "ATEOM_CLOUD_HYPERVISOR");
        // the image's own virtiofsd was found and runs, so Cloud Hypervisor is the only thing missing
        assertThat(detail).doesNotContain("virtiofsd");
    }

    @Test
    void logSaysInJsonThatCloudHypervisorIsMissing() throws Exception {
        List<JsonNode> lines = jsonLogLines();

        assertThat(lines).anySatisfy(line -> {
            assertThat(line.path("level").asText()).isEqualTo("WARN");
            assertThat(line.path("msg").asText()).contains("Cloud Hypervisor not found", "--cloud-hypervisor",
                    "ATEOM_CLOUD_HYPERVISOR");
        });
        assertThat(lines).anySatisfy(line ->
                assertThat(line.path("msg").asText()).contains("virtiofsd 1.", "/opt/virtiofsd/bin/virtiofsd"));
        assertThat(lines).anySatisfy(line ->
                assertThat(line.path("msg").asText()).contains("ateom listening on http://0.0.0.0:8420", "state /var/lib/ateom"));
    }

    /**
     * Last: stops the shared container. SIGTERM goes to tini (PID 1), which must pass it on to the JVM; if it did not,
     * docker would SIGKILL everything after the timeout (exit code 137).
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void dockerStopEndsTheDaemonWithSigterm() {
        var docker = DockerClientFactory.lazyClient();
        int timeoutSeconds = 20;
        long started = System.nanoTime();
        docker.stopContainerCmd(daemon.getContainerId()).withTimeout(timeoutSeconds).exec();
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        var state = docker.inspectContainerCmd(daemon.getContainerId()).exec().getState();
        assertThat(state.getExitCodeLong()).as("128 + SIGTERM: the JVM exited on the forwarded signal").isEqualTo(143L);
        assertThat(took).isLessThan(Duration.ofSeconds(timeoutSeconds));
    }

    /** Every log line that is JSON (the JVM itself may print plain lines, e.g. for JAVA_TOOL_OPTIONS). */
    private static List<JsonNode> jsonLogLines() throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : daemon.getLogs().split("\n")) {
            if (line.startsWith("{")) lines.add(JSON.readTree(line));
        }
        assertThat(lines).as("JSON log lines of the daemon").isNotEmpty();
        return lines;
    }

    private static HttpRequest.Builder get(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).GET();
    }

    /** The token the daemon created in the container; there is no shell to exec there, so the file is copied out. */
    private static HttpRequest.Builder authorized(HttpRequest.Builder request) {
        String token = daemon.copyFileFromContainer(TOKEN_FILE,
                in -> new String(in.readAllBytes(), StandardCharsets.UTF_8).trim());
        assertThat(token).isNotBlank();
        return request.header("Authorization", "Bearer " + token);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
