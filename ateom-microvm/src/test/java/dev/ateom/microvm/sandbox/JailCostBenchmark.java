package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the VMM jail costs resume and clone, in one run: the CHV stand-in's {@code none} backend under two daemons side
 * by side, {@code --jail off} and {@code --jail on}, both with the warm VMM pool ({@code --vmm-pool 2}), their cycles
 * interleaved so both see the same host load. The p50 of each request (wall clock at the client) and of its
 * {@code chvStart} step (the claim), of the wait for a jailed member's hand-over (its files bound in, its cgroup's
 * limits: beside the virtiofsd start), the ratio and the difference, and how many claims were warm. Run: {@code mvn -pl ateom-microvm test -Dtest=JailCostBenchmark
 * -Dsurefire.excludedGroups=none}.
 */
@Tag("benchmark")
class JailCostBenchmark {
    private static final int CYCLES = Integer.getInteger("bench.jailCycles", 9);
    private static final String WARM = "ateom_vmm_pool_claims_total{source=\"warm\"}";
    private static final String COLD = "ateom_vmm_pool_claims_total{source=\"cold\"}";
    @TempDir Path dir;

    private record Bench(String name, DaemonHarness daemon, Map<String, List<Long>> samples) {}

    @Test
    void resumeAndCloneWithAndWithoutTheJail() throws Exception {
        Map<String, Map<ConfigOption, String>> configs = new LinkedHashMap<>();
        configs.put("jail off, pool 2", Map.of(ConfigOption.JAIL, "off", ConfigOption.VMM_POOL, "2"));
        configs.put("jail on, pool 2", Map.of(ConfigOption.JAIL, "on", ConfigOption.VMM_POOL, "2"));
        List<Bench> benches = new ArrayList<>();
        try {
            for (var config : configs.entrySet()) {
                Path root = Files.createDirectories(dir.resolve(config.getKey().replaceAll("[^a-z0-9]", "")));
                benches.add(new Bench(config.getKey(), new DaemonHarness(root, config.getValue()), new LinkedHashMap<>()));
            }
            for (Bench b : benches) b.daemon().createOk(b.daemon().spec("bench", "bench"));
            Map<String, String> snapshots = new LinkedHashMap<>();
            for (int i = 0; i < CYCLES; i++) {
                for (Bench b : benches) {
                    snapshots.put(b.name(), b.daemon().post("/v1/sandboxes/bench/suspend", "{}").body().path("snapshotId").asText());
                    b.daemon().awaitTeardowns();
                    b.daemon().awaitPoolFull();
                    long start = System.nanoTime();
                    JsonNode resumed = b.daemon().post("/v1/sandboxes/bench/resume", "{}").body();
                    add(b.samples(), "resume", start, resumed);
                }
            }
            for (int i = 0; i < CYCLES; i++) {
                for (Bench b : benches) {
                    b.daemon().awaitPoolFull();
                    ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshots.get(b.name())).put("id", "clone-" + i);
                    clone.putObject("identity").put("name", "clone-" + i).put("namespace", "bench");
                    long start = System.nanoTime();
                    JsonNode cloned = b.daemon().createOk(clone).body();
                    add(b.samples(), "clone", start, cloned);
                    b.daemon().delete("/v1/sandboxes/clone-" + i);
                }
            }
            print(benches);
            for (Bench b : benches) b.daemon().delete("/v1/sandboxes/bench?deleteSnapshots=true");
        } finally {
            for (Bench b : benches) b.daemon().close();
        }
    }

    private static void add(Map<String, List<Long>> samples, String op, long start, JsonNode answer) {
        samples.computeIfAbsent(op + " (request)", k -> new ArrayList<>()).add((System.nanoTime() - start) / 1_000_000);
        samples.computeIfAbsent(op + " chvStart", k -> new ArrayList<>()).add(answer.path("timingsMs").path("chvStart").asLong());
        // with the jail: how long the bring-up waited for the warm member's hand-over running beside virtiofsd (0: not at all)
        samples.computeIfAbsent(op + " handOver wait", k -> new ArrayList<>()).add(answer.path("timingsMs").path("handOver").asLong());
    }

    private static long p50(List<Long> values) {
        return values.stream().sorted().toList().get(values.size() / 2);
    }

    private static void print(List<Bench> benches) throws Exception {
        Bench off = benches.get(0);
        Bench on = benches.get(1);
        System.out.printf("%nVMM jail cost, none backend, %d resumes and %d clones each, interleaved, p50 ms (load average %s)%n", CYCLES,
                CYCLES, Files.readString(Path.of("/proc/loadavg")).strip());
        System.out.printf("%-20s %17s %17s %8s %8s%n", "", off.name(), on.name(), "on/off", "on-off");
        for (String row : off.samples().keySet()) {
            long a = p50(off.samples().get(row));
            long b = p50(on.samples().get(row));
            System.out.printf("%-20s %17d %17d %8s %8d%n", row, a, b, a == 0 ? "-" : String.format("%.2fx", (double) b / a), b - a);
        }
        for (Bench b : benches) {
            System.out.printf("%s: VMM claims warm %.0f, cold %.0f%n", b.name(), Math.max(0, b.daemon().metric(WARM)),
                    Math.max(0, b.daemon().metric(COLD)));
        }
    }
}
