package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.network.TestNetwork;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code network} step of resume (acquiring a slot with the sandbox's policy, as the API reports it) from a ready
 * pool and cold ({@code --network-pool-ready 0}: the slot is built on the spot), with the stand-in's {@code none}
 * backend. The module's {@code SlotAcquisitionBenchmark} puts the same against one {@code ip} process per step.
 * Run: {@code mvn -pl ateom-microvm test -Dtest=NetworkStepBenchmark -Dsurefire.excludedGroups=none}.
 */
@Tag("benchmark")
class NetworkStepBenchmark {
    private static final int CYCLES = 15;
    @TempDir Path dir;

    @Test
    void networkStepOfResume() throws Exception {
        System.out.println("| slots | resumes | median ms | p90 ms | max ms |");
        System.out.println("|---|---|---|---|---|");
        for (int ready : List.of(4, 0)) {
            try (TestNetwork network = TestNetwork.create()) {
                Map<ConfigOption, String> flags = new EnumMap<>(ConfigOption.class);
                flags.put(ConfigOption.NETWORK, "true");
                flags.put(ConfigOption.NETWORK_PREFIX, network.prefix());
                flags.put(ConfigOption.NETWORK_HOST_NAMESPACE, network.prefix() + "-host");
                flags.put(ConfigOption.NETWORK_POOL, "100.72.0.0/24");
                flags.put(ConfigOption.NETWORK_POOL_READY, Integer.toString(ready));
                flags.put(ConfigOption.NETWORK_REUSE_DELAY, "0");
                List<Long> steps = new ArrayList<>();
                try (DaemonHarness daemon = new DaemonHarness(Files.createDirectories(dir.resolve("r" + ready)), flags)) {
                    ObjectNode spec = daemon.spec("bench", "bench");
                    spec.putObject("network").putArray("ports").addObject().put("guest", 8080);
                    daemon.createOk(spec);
                    for (int i = 0; i < CYCLES; i++) {
                        daemon.post("/v1/sandboxes/bench/suspend", "{}");
                        // the refill builds a replacement in the background after every acquire: give it its moment
                        Thread.sleep(300);
                        steps.add(daemon.post("/v1/sandboxes/bench/resume", "{}").body().path("timingsMs").path("network").asLong());
                    }
                    daemon.delete("/v1/sandboxes/bench?deleteSnapshots=true");
                }
                steps.sort(null);
                System.out.println("| " + (ready > 0 ? "ready pool (" + ready + ")" : "cold (none ready)") + " | " + steps.size() + " | "
                        + steps.get(steps.size() / 2) + " | " + steps.get(steps.size() * 9 / 10) + " | " + steps.getLast() + " |");
            }
        }
    }
}
