package dev.ateom.e2b;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.fixtures.guest.agent.AgentClient;
import dev.ateom.fixtures.guest.agent.AgentConnection;
import dev.ateom.fixtures.guest.agent.HostAgent;
import dev.ateom.fixtures.guest.agent.ProcessOutput;
import dev.ateom.microvm.Daemon;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.config.DaemonConfigLoader;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.sandbox.NoneBackendSpec;
import dev.ateom.microvm.sandbox.TestTools;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * E2B create-from-template through the E2B API at 1 and 5 at once (API time beside the hypervisor's own restore,
 * {@code vmRestore} of the same clones), and a {@code commands.run('true')} round trip (Connect {@code Process/Start}
 * to its end) through the envd proxy beside the same call straight to the agent. Stand-in {@code none} backend, the
 * agent run on the host behind its vsock, so this is the daemon's and the proxy's own cost. Prints a markdown table;
 * CubeSandbox's published create (60 ms, their README) is a reference row, not measured here.
 */
@Tag("benchmark")
class E2bBenchmark {
    private static final int SEQUENTIAL = 10;
    private static final int CONCURRENT = 5;
    private static final int CONCURRENT_ROUNDS = 3;
    private static final int RUNS = 30;
    private static final String KEY = "e2b_bench_key_0123456789abcdef";
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir Path dir;

    @Test
    void createFromTemplateAndCommandRoundTrip() throws Exception {
        try (HostAgent agent = HostAgent.start(Files.createDirectories(dir.resolve("agent")))) {
            Path standIn = dir.resolve("chv-standin");
            Files.writeString(standIn, "#!/bin/sh\nATEOM_STANDIN_VSOCK_FORWARD=49983=127.0.0.1:" + agent.address().getPort()
                    + " exec " + TestTools.standIn() + " \"$@\"\n");
            Files.setPosixFilePermissions(standIn, PosixFilePermissions.fromString("rwx------"));
            int port;
            try (ServerSocket free = new ServerSocket(0)) {
                port = free.getLocalPort();
            }
            Map<ConfigOption, String> flags = new EnumMap<>(ConfigOption.class);
            flags.put(ConfigOption.PORT, "0");
            flags.put(ConfigOption.STATE_DIR, dir.resolve("state").toString());
            flags.put(ConfigOption.RUN_DIR, dir.resolve("run").toString());
            flags.put(ConfigOption.CLOUD_HYPERVISOR, standIn.toString());
            flags.put(ConfigOption.VIRTIOFSD, TestTools.virtiofsd().toString());
            flags.put(ConfigOption.CONFIG, Files.writeString(dir.resolve("empty.yaml"), "").toString());
            flags.put(ConfigOption.IMAGE_ROOTS, Files.createDirectories(dir.resolve("image")).toString());
            flags.put(ConfigOption.JAIL, "off"); // the host-run agent is on the host's loopback, out of a jail's reach
            flags.put(ConfigOption.E2B_LISTEN, "127.0.0.1:" + port);
            flags.put(ConfigOption.E2B_KEYS_FILE, Files.writeString(dir.resolve("keys"), KEY + "\n").toString());
            try (Daemon daemon = Daemon.start(new DaemonConfigLoader(flags, Map.of()).load())) {
                String token = Files.readString(dir.resolve("state/api-token")).strip();
                ObjectNode template = ApiJson.mapper().createObjectNode().put("name", "bench");
                template.set("spec", NoneBackendSpec.of(dir.resolve("image"), null, "bench", "templates", "name"));
                HttpResponse<String> built = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + daemon.port() + "/v1/templates"))
                        .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(template.toString())).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(built.statusCode()).as(built.body()).isEqualTo(201);
                String base = "http://127.0.0.1:" + port;

                List<Long> one = new ArrayList<>();
                List<Long> oneRestore = new ArrayList<>();
                List<Long> oneClone = new ArrayList<>();
                for (int i = 0; i < SEQUENTIAL; i++) {
                    Timed created = create(base);
                    one.add(created.millis());
                    JsonNode timings = timings(daemon.port(), token, created.id());
                    oneRestore.add(timings.path("vmRestore").asLong());
                    oneClone.add(timings.path("total").asLong());
                    kill(base, created.id());
                }
                List<Long> five = new ArrayList<>();
                List<Long> fiveRestore = new ArrayList<>();
                List<Long> fiveClone = new ArrayList<>();
                try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                    for (int round = 0; round < CONCURRENT_ROUNDS; round++) {
                        List<Future<Timed>> futures = new ArrayList<>();
                        for (int i = 0; i < CONCURRENT; i++) futures.add(pool.submit((Callable<Timed>) () -> create(base)));
                        for (Future<Timed> f : futures) {
                            Timed created = f.get();
                            five.add(created.millis());
                            JsonNode timings = timings(daemon.port(), token, created.id());
                            fiveRestore.add(timings.path("vmRestore").asLong());
                            fiveClone.add(timings.path("total").asLong());
                            kill(base, created.id());
                        }
                    }
                }

                String id = create(base).id();
                AgentClient proxied = new AgentClient(AgentConnection.tcp(new InetSocketAddress("127.0.0.1", port), Duration.ofSeconds(30)))
                        .withHeader("E2b-Sandbox-Id", id).withHeader("E2b-Sandbox-Port", "49983");
                AgentClient direct = agent.client();
                List<Long> viaProxy = new ArrayList<>();
                List<Long> straight = new ArrayList<>();
                for (int i = 0; i < RUNS; i++) {
                    viaProxy.add(runTrue(proxied));
                    straight.add(runTrue(direct));
                }
                kill(base, id);

                System.out.println();
                System.out.println("| E2B (none backend, agent on the host) | p50 ms | p99 ms | n | beside |");
                System.out.println("|---|---|---|---|---|");
                row("create from template, 1 at a time", one, "the daemon's clone p50 " + p(oneClone, 50) + " ms, its vmRestore p50 "
                        + p(oneRestore, 50) + " ms (API " + ratio(one, oneRestore) + " the restore)");
                row("create from template, 5 at once", five, "the daemon's clone p50 " + p(fiveClone, 50) + " ms, its vmRestore p50 "
                        + p(fiveRestore, 50) + " ms (API " + ratio(five, fiveRestore) + " the restore)");
                row("commands.run('true') through the proxy", viaProxy, "straight to the agent p50 " + p(straight, 50) + " ms ("
                        + ratio(viaProxy, straight) + ")");
                System.out.println("| CubeSandbox create (published, their README) | 60 | | | not measured here |");
            }
        }
    }

    private record Timed(String id, long millis) {}

    private Timed create(String base) throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(base + "/v2/sandboxes")).header("X-API-Key", KEY)
                .POST(HttpRequest.BodyPublishers.ofString("{\"templateID\":\"bench\",\"timeout\":600}")).build(), HttpResponse.BodyHandlers.ofString());
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(res.statusCode()).as(res.body()).isEqualTo(201);
        return new Timed(ApiJson.mapper().readTree(res.body()).path("sandboxID").asText(), millis);
    }

    private void kill(String base, String id) throws Exception {
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(base + "/sandboxes/" + id)).header("X-API-Key", KEY).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(res.statusCode()).as(res.body()).isEqualTo(204);
    }

    /** The daemon's step timings of the sandbox's last operation (its clone): {@code vmRestore}, {@code total}, ... */
    private JsonNode timings(int daemonPort, String token, String id) throws Exception {
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + daemonPort + "/v1/sandboxes/" + id))
                .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
        return ApiJson.mapper().readTree(res.body()).path("lastTimingsMs");
    }

    private static long runTrue(AgentClient client) throws Exception {
        long start = System.nanoTime();
        ProcessOutput out = ProcessOutput.read(client.stream("process.Process/Start", ProcessOutput.command("/bin/sh", "-c", "true"), Map.of()));
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(out.exitCode()).isZero();
        return millis;
    }

    private static void row(String what, List<Long> values, String beside) {
        System.out.println("| " + what + " | " + p(values, 50) + " | " + p(values, 99) + " | " + values.size() + " | " + beside + " |");
    }

    private static long p(List<Long> values, int percentile) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    private static String ratio(List<Long> measured, List<Long> floor) {
        long f = p(floor, 50);
        return f == 0 ? "-" : String.format("%.1fx", (double) p(measured, 50) / f);
    }
}
