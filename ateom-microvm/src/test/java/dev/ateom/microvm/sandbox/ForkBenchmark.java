package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checkpoint pause window and fork of N = 1, 3, 10 from a running sandbox, with the CHV stand-in's {@code none}
 * backend (daemon overhead only) and the default {@code --max-parallel-restores} (4). Prints a table.
 * Run: {@code mvn -pl ateom-microvm test -Dtest=ForkBenchmark -Dsurefire.excludedGroups=none}; {@code -Dbench.backend=qemu}
 * forks a real guest instead ({@link RealGuest}), {@code -Dbench.forks=3} picks the fork sizes.
 */
@Tag("benchmark")
class ForkBenchmark {
    @TempDir Path dir;

    @Test
    void checkpointAndForkTimings() throws Exception {
        boolean qemu = "qemu".equals(System.getProperty("bench.backend", "none"));
        int[] forks = Arrays.stream(System.getProperty("bench.forks", "1,3,10").split(",")).mapToInt(Integer::parseInt).toArray();
        try (DaemonHarness daemon = qemu ? RealGuest.daemon(dir) : new DaemonHarness(dir, Map.of())) {
            daemon.createOk(qemu ? RealGuest.spec("bench-src") : daemon.spec("bench-src", "bench-src"));
            StringBuilder table = new StringBuilder(String.format("%n%s backend%n%-14s %10s %12s %10s %10s%n", qemu ? "qemu" : "none",
                    "operation", "total ms", "pause ms", "clones ms", "per clone"));
            for (int i = 0; i < 3; i++) {
                JsonNode t = daemon.post("/v1/sandboxes/bench-src/checkpoint", "{}").body().path("timingsMs");
                table.append(String.format("%-14s %10d %12d %10s %10s%n", "checkpoint", t.path("total").asLong(),
                        t.path("pauseWindow").asLong(), "-", "-"));
            }
            for (int n : forks) {
                var res = daemon.post("/v1/sandboxes/bench-src/fork", "{\"count\": " + n + ", \"namePrefix\": \"b" + n + "\"}");
                assertThat(res.status()).as(res.body().toString()).isEqualTo(200);
                assertThat(res.body().path("succeeded").asInt()).isEqualTo(n);
                JsonNode t = res.body().path("timingsMs");
                table.append(String.format("%-14s %10d %12d %10d %10d%n", "fork N=" + n, t.path("total").asLong(),
                        res.body().path("checkpointTimingsMs").path("pauseWindow").asLong(), t.path("clones").asLong(),
                        t.path("clones").asLong() / n));
                for (JsonNode clone : res.body().path("clones")) daemon.delete("/v1/sandboxes/" + clone.path("id").asText());
            }
            System.out.println(table);
            daemon.delete("/v1/sandboxes/bench-src?deleteSnapshots=true");
        }
    }
}
