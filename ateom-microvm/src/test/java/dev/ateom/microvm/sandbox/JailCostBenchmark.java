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
 * What the VMM jail costs resume and clone, in one run: the CHV stand-in's {@code none} backend under three daemons,
 * {@code --jail off} with the warm pool (the default before issue 24), {@code --jail off} without it (every CHV
 * started cold, as the jail does) and {@code --jail on}. The p50 of each request (wall clock at the client) and of its
 * {@code chvStart} step, with ratios to the first two. Run: {@code mvn -pl ateom-microvm test -Dtest=JailCostBenchmark
 * -Dsurefire.excludedGroups=none}.
 */
@Tag("benchmark")
class JailCostBenchmark {
    private static final int CYCLES = Integer.getInteger("bench.jailCycles", 5);
    @TempDir Path dir;

    @Test
    void resumeAndCloneWithAndWithoutTheJail() throws Exception {
        Map<String, Map<ConfigOption, String>> configs = new LinkedHashMap<>();
        configs.put("jail off, pool 2", Map.of(ConfigOption.JAIL, "off", ConfigOption.VMM_POOL, "2"));
        configs.put("jail off, pool 0", Map.of(ConfigOption.JAIL, "off", ConfigOption.VMM_POOL, "0"));
        configs.put("jail on", Map.of(ConfigOption.JAIL, "on"));
        Map<String, Map<String, Long>> p50s = new LinkedHashMap<>();
        for (var config : configs.entrySet()) {
            Path root = Files.createDirectories(dir.resolve(config.getKey().replaceAll("[^a-z0-9]", "")));
            try (DaemonHarness daemon = new DaemonHarness(root, config.getValue())) {
                Map<String, List<Long>> samples = new LinkedHashMap<>();
                daemon.createOk(daemon.spec("bench", "bench"));
                String snapshot = null;
                for (int i = 0; i < CYCLES; i++) {
                    snapshot = daemon.post("/v1/sandboxes/bench/suspend", "{}").body().path("snapshotId").asText();
                    daemon.awaitTeardowns();
                    daemon.awaitPoolFull();
                    long start = System.nanoTime();
                    JsonNode resumed = daemon.post("/v1/sandboxes/bench/resume", "{}").body();
                    add(samples, "resume", start, resumed);
                }
                for (int i = 0; i < CYCLES; i++) {
                    daemon.awaitPoolFull();
                    ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshot).put("id", "clone-" + i);
                    clone.putObject("identity").put("name", "clone-" + i).put("namespace", "bench");
                    long start = System.nanoTime();
                    JsonNode cloned = daemon.createOk(clone).body();
                    add(samples, "clone", start, cloned);
                    daemon.delete("/v1/sandboxes/clone-" + i);
                }
                daemon.delete("/v1/sandboxes/bench?deleteSnapshots=true");
                Map<String, Long> p50 = new LinkedHashMap<>();
                samples.forEach((name, values) -> p50.put(name, values.stream().sorted().toList().get(values.size() / 2)));
                p50s.put(config.getKey(), p50);
            }
        }
        print(p50s);
    }

    private static void add(Map<String, List<Long>> samples, String op, long start, JsonNode answer) {
        samples.computeIfAbsent(op + " (request)", k -> new ArrayList<>()).add((System.nanoTime() - start) / 1_000_000);
        samples.computeIfAbsent(op + " chvStart", k -> new ArrayList<>()).add(answer.path("timingsMs").path("chvStart").asLong());
    }

    private static void print(Map<String, Map<String, Long>> p50s) {
        List<String> names = new ArrayList<>(p50s.keySet());
        Map<String, Long> pooled = p50s.get(names.get(0));
        Map<String, Long> cold = p50s.get(names.get(1));
        Map<String, Long> jailed = p50s.get(names.get(2));
        System.out.printf("%nVMM jail cost, none backend, %d resumes and %d clones each, p50 ms%n", CYCLES, CYCLES);
        System.out.printf("%-18s %17s %17s %10s %12s %12s%n", "", names.get(0), names.get(1), names.get(2), "on/pool 2", "on/pool 0");
        for (String row : jailed.keySet()) {
            System.out.printf("%-18s %17d %17d %10d %12s %12s%n", row, pooled.get(row), cold.get(row), jailed.get(row),
                    ratio(jailed.get(row), pooled.get(row)), ratio(jailed.get(row), cold.get(row)));
        }
    }

    private static String ratio(long a, long b) {
        return b == 0 ? "-" : String.format("%.2fx", (double) a / b);
    }
}
