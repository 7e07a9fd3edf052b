package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.Daemon;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.config.DaemonConfigLoader;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.vm.VsockGuestProbe;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A daemon on a random port with its own state and run dirs, the CHV stand-in ({@code none} backend) as its
 * cloud-hypervisor and the setup script's real virtiofsd; plus an HTTP client that speaks to it.
 */
final class DaemonHarness implements AutoCloseable {
    final Path root;
    final Daemon daemon;
    final String token;
    private final HttpClient http = HttpClient.newHttpClient();

    DaemonHarness(Path root, Map<ConfigOption, String> extra) throws IOException {
        this(root, extra, new VsockGuestProbe());
    }

    /** A harness whose daemon reaches the guests' probes through {@code probe} (a fake, for the none backend's guests). */
    DaemonHarness(Path root, Map<ConfigOption, String> extra, GuestProbe probe) throws IOException {
        this.root = root;
        Map<ConfigOption, String> flags = new EnumMap<>(ConfigOption.class);
        flags.put(ConfigOption.PORT, "0");
        flags.put(ConfigOption.STATE_DIR, root.resolve("state").toString());
        flags.put(ConfigOption.RUN_DIR, root.resolve("run").toString());
        flags.put(ConfigOption.CLOUD_HYPERVISOR, TestTools.standIn().toString());
        flags.put(ConfigOption.VIRTIOFSD, TestTools.virtiofsd().toString());
        flags.put(ConfigOption.CONFIG, Files.writeString(root.resolve("empty.yaml"), "").toString());
        flags.put(ConfigOption.IMAGE_ROOTS, Files.createDirectories(imageDir(root)).toString());
        flags.put(ConfigOption.HOST_DIRECTORY_ROOTS, Files.createDirectories(hostDirectoryRoot(root)).toString());
        flags.putAll(extra);
        daemon = Daemon.start(new DaemonConfigLoader(flags, Map.of()).load(), probe);
        token = Files.readString(root.resolve("state/api-token")).strip();
    }

    /** The allowed image root of a harness on {@code root}: {@link #spec}'s kernel and rootfs are in it. */
    static Path imageDir(Path root) { return root.resolve("image"); }

    /** The allowed root of hostDirectory sources of a harness on {@code root}. */
    static Path hostDirectoryRoot(Path root) { return root.resolve("host"); }

    /** A guest "image" for the none backend: files that exist, a rootfs dir. */
    ObjectNode spec(String id, String name) throws IOException {
        Path image = Files.createDirectories(imageDir(root));
        Path kernel = image.resolve("vmlinux");
        if (!Files.exists(kernel)) Files.writeString(kernel, "not a kernel: the none backend never reads it");
        Files.createDirectories(image.resolve("rootfs/etc"));
        ObjectNode spec = ApiJson.mapper().createObjectNode();
        if (id != null) spec.put("id", id);
        spec.putObject("identity").put("name", name).put("namespace", "tests");
        spec.put("vcpus", 1).put("memoryMib", 128).put("kernel", kernel.toString()).put("cmdline", "console=ttyS0")
                .put("rootfs", image.resolve("rootfs").toString());
        spec.putArray("durableDirs").add("data");
        ObjectNode volume = spec.putObject("systemInfo").putArray("volumes").addObject().put("name", "identity");
        volume.putArray("sources").addObject().putObject("actorMetadata").putArray("items")
                .add(ApiJson.mapper().createObjectNode().put("field", "name").put("path", "name"))
                .add(ApiJson.mapper().createObjectNode().put("field", "uid").put("path", "uid"));
        return spec;
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
        HttpRequest req = HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + token).GET().build();
        return http.send(req, HttpResponse.BodyHandlers.ofString()).body();
    }

    Response delete(String path) throws Exception { return send(HttpRequest.newBuilder(uri(path)).DELETE(), true); }

    Response send(HttpRequest.Builder req, boolean authenticated) throws Exception {
        if (authenticated) req.header("Authorization", "Bearer " + token);
        HttpResponse<String> res = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
        JsonNode body = res.body().isEmpty() ? ApiJson.mapper().createObjectNode() : ApiJson.mapper().readTree(res.body());
        return new Response(res.statusCode(), res.headers().firstValue("content-type").orElse(""), body);
    }

    /** The Prometheus text of {@code /metrics}. */
    String metrics() throws Exception {
        return http.send(HttpRequest.newBuilder(uri("/metrics")).header("Authorization", "Bearer " + token).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The value of an unlabelled metric, or -1 when absent. */
    double metric(String name) throws Exception {
        return metrics().lines().filter(l -> l.startsWith(name + " ")).mapToDouble(l -> Double.parseDouble(l.substring(name.length() + 1)))
                .findFirst().orElse(-1);
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

    URI uri(String path) { return URI.create("http://127.0.0.1:" + daemon.port() + path); }

    Path stateDir() { return root.resolve("state"); }

    Path runDir() { return root.resolve("run"); }

    @Override
    public void close() { daemon.close(); }

    record Response(int status, String contentType, JsonNode body) {}
}
