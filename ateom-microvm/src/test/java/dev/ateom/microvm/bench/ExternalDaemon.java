package dev.ateom.microvm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.sandbox.PrometheusText;
import dev.ateom.microvm.sandbox.TestTools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code bin/ateom daemon} as its own process, as an operator runs it (its JVM flags included), with the time from
 * the fork to the first answered request and its resident memory; for benchmarks that measure the daemon whole.
 */
final class ExternalDaemon implements AutoCloseable {
    private final Process process;
    private final String token;
    /** Not the JDK's HttpClient: see {@link BenchHttp} for what that measured besides the daemon. */
    private final BenchHttp http;
    private final long startMillis;
    private final Path stateDir;

    /**
     * @param imageRoots the daemon's {@code --image-roots}: where the benchmark's guest files are
     * @param extraArgs  more daemon flags, e.g. {@code --vmm-pool 0} for a before/after in one session
     */
    ExternalDaemon(Path root, Path hypervisor, String imageRoots, List<String> extraArgs) throws Exception {
        this(root, hypervisor, imageRoots, extraArgs, Map.of());
    }

    /** @param environment added to the daemon's environment, e.g. {@code ATEOM_JAVA_OPTS} */
    ExternalDaemon(Path root, Path hypervisor, String imageRoots, List<String> extraArgs, Map<String, String> environment)
            throws Exception {
        this(TestTools.repoRoot(), root, hypervisor, imageRoots, extraArgs, environment);
    }

    /** @param checkout the built checkout whose {@code bin/ateom} runs: this one, or another commit's for a before/after */
    ExternalDaemon(Path checkout, Path root, Path hypervisor, String imageRoots, List<String> extraArgs, Map<String, String> environment)
            throws Exception {
        Path portFile = root.resolve("port");
        stateDir = root.resolve("state");
        Files.writeString(root.resolve("empty.yaml"), "");
        List<String> command = new ArrayList<>(List.of(checkout.resolve("bin/ateom").toString(), "daemon",
                "--port", "0", "--port-file", portFile.toString(), "--state-dir", stateDir.toString(),
                "--run-dir", root.resolve("run").toString(), "--cloud-hypervisor", hypervisor.toString(),
                "--virtiofsd", TestTools.virtiofsd().toString(), "--config", root.resolve("empty.yaml").toString(),
                "--image-roots", imageRoots, "--log-level", "WARNING"));
        command.addAll(extraArgs);
        long t0 = System.nanoTime();
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(root.resolve("daemon.log").toFile());
        builder.environment().putAll(environment);
        process = builder.start();
        http = new BenchHttp(awaitPort(portFile));
        awaitHealthy();
        startMillis = (System.nanoTime() - t0) / 1_000_000;
        token = Files.readString(stateDir.resolve("api-token")).strip();
    }

    private int awaitPort(Path portFile) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) throw new IllegalStateException("daemon exited with " + process.exitValue());
            if (Files.exists(portFile)) return Integer.parseInt(Files.readString(portFile).strip());
            Thread.sleep(2);
        }
        throw new IllegalStateException("daemon wrote no port file within 60 s");
    }

    private void awaitHealthy() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (http.send("GET", "/healthz", Map.of(), null).status() == 200) return;
            } catch (IOException e) {
                // not accepting yet
            }
            Thread.sleep(2);
        }
        throw new IllegalStateException("daemon did not answer /healthz within 60 s");
    }

    /** Milliseconds from the fork of {@code bin/ateom daemon} to its first 200 on {@code /healthz}. */
    long startMillis() { return startMillis; }

    /** The daemon JVM's pid. */
    long pid() { return process.pid(); }

    /** The daemon's {@code --state-dir}. */
    Path stateDir() { return stateDir; }

    /** The daemon JVM's resident set in MiB. */
    double rssMib() throws IOException { return rssMib(process.pid()); }

    /** The resident sets of the daemon's descendants (CHV, virtiofsd) in MiB. */
    double childrenRssMib() {
        return process.descendants().mapToDouble(p -> {
            try {
                return rssMib(p.pid());
            } catch (IOException e) {
                return 0; // exited meanwhile
            }
        }).sum();
    }

    static double rssMib(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
        }
        return 0;
    }

    /** A request: its wall time as the client sees it, and the daemon's own time for it (NaN if it did not say). */
    record Timed(int status, JsonNode body, double millis, double serverMillis) {
        /** This answer, if its status is {@code expected}; otherwise fails naming both and the body. */
        Timed expect(int expected) {
            if (status != expected) throw new IllegalStateException("expected HTTP " + expected + " but got " + status + ": " + body);
            return this;
        }
    }

    Timed post(String path, String json) throws Exception {
        return send("POST", path, Map.of("Authorization", "Bearer " + token, "Content-Type", "application/json"),
                json.getBytes(StandardCharsets.UTF_8));
    }

    Timed delete(String path) throws Exception { return send("DELETE", path, Map.of("Authorization", "Bearer " + token), null); }

    Timed get(String path) throws Exception { return send("GET", path, Map.of("Authorization", "Bearer " + token), null); }

    /**
     * How many VMMs its bring-ups took from the warm pool ({@code warm}) and started themselves ({@code cold}) so far,
     * from {@code ateom_vmm_pool_claims_total}: a cold start puts a whole VMM start on the path of one bring-up.
     */
    PoolClaims poolClaims() throws IOException {
        String metrics = metrics();
        return new PoolClaims(counter(metrics, "ateom_vmm_pool_claims_total{source=\"warm\"}"),
                counter(metrics, "ateom_vmm_pool_claims_total{source=\"cold\"}"));
    }

    /**
     * Until its warm pool is full again ({@code ateom_vmm_pool_ready} at {@code ateom_vmm_pool_size}): the refill a claim
     * started (here a stand-in JVM, ~0.5 s of CPU; a real CHV's start is a few ms) is over. Polled every 25 ms.
     *
     * @return whether it was full within {@code max}
     */
    boolean awaitPoolFull(Duration max) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        while (true) {
            String metrics = metrics();
            if (counter(metrics, "ateom_vmm_pool_ready") >= counter(metrics, "ateom_vmm_pool_size")) return true;
            if (System.nanoTime() > deadline) return false;
            Thread.sleep(25);
        }
    }

    /** Its {@code /metrics} exposition. */
    private String metrics() throws IOException {
        BenchHttp.Answer metrics = http.send("GET", "/metrics", Map.of("Authorization", "Bearer " + token), null);
        if (metrics.status() != 200) throw new IllegalStateException("GET /metrics answered " + metrics.status());
        return metrics.body();
    }

    /** A counter's or gauge's value; 0 before its first count, when it is not exposed yet. */
    private static long counter(String exposition, String series) {
        return Math.round(PrometheusText.value(exposition, series).orElse(0));
    }

    /** VMMs taken warm from the pool and started cold, counted since the daemon's start (or between two readings). */
    record PoolClaims(long warm, long cold) {
        PoolClaims since(PoolClaims earlier) {
            return new PoolClaims(warm - earlier.warm, cold - earlier.cold);
        }
    }

    private Timed send(String method, String path, Map<String, String> headers, byte[] body) throws Exception {
        long t0 = System.nanoTime();
        BenchHttp.Answer res = http.send(method, path, headers, body);
        double millis = (System.nanoTime() - t0) / 1e6;
        JsonNode json = res.body().isEmpty() ? ApiJson.mapper().createObjectNode() : ApiJson.mapper().readTree(res.body());
        return new Timed(res.status(), json, millis, res.serverMillis());
    }

    @Override
    public void close() throws Exception {
        http.close();
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
    }
}
