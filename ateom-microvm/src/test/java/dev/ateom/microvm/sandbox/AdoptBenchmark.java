package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.ToLongFunction;

import static dev.ateom.microvm.sandbox.SnapshotStoreDaemonTest.awaitPushed;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 14's second figure: the time from "adopt" on host B (a second daemon with its own state and run dirs, sharing
 * one s3proxy bucket with host A through {@link StoreHosts}, {@code --snapshot-store-leases=off} because s3proxy does
 * not make conditional writes atomic) to a running sandbox, beside a local resume of the same snapshot on host A. Each
 * round: A creates a sandbox, writes {@code -Dbench.durableMib} (default 64) of random durable data, suspends and
 * pushes; B adopts the snapshot (pull, verify, restore: B has never seen it), then A resumes its own copy. The CHV
 * stand-in's {@code none} backend, so the restore is the daemon's work only; the difference is the pull and the
 * durable dir's extraction (a local resume reuses its durable dir). Prints the median of {@code -Dbench.rounds}
 * (default 5) and every round; also {@code ateom-microvm/target/adopt-benchmark.md}.
 * Run: {@code mvn -pl ateom-microvm test -Dtest=AdoptBenchmark -Dsurefire.excludedGroups=none}.
 */
@Tag("benchmark")
class AdoptBenchmark {
    private static final String PREFIX = "adopt-bench";

    @TempDir Path dir;

    private record Round(long adoptMs, long resumeMs, JsonNode adoptTimings, JsonNode resumeTimings) {}

    @Test
    void adoptOnAnotherHostBesideALocalResume() throws Exception {
        int rounds = Integer.getInteger("bench.rounds", 5);
        int durableMib = Integer.getInteger("bench.durableMib", 64);
        List<Round> measured = new ArrayList<>();
        try (StoreHosts store = StoreHosts.start(dir, PREFIX, StoreHosts.Front.DIRECT)) {
            Path imagesOfA = Files.createDirectories(DaemonHarness.imageDir(store.root("host-a")));
            DaemonHarness hostA = store.host("host-a", flags(store, "host-a", true, null));
            DaemonHarness hostB = store.host("host-b", flags(store, "host-b", false, imagesOfA));
            for (int round = 1; round <= rounds; round++) {
                measured.add(round(hostA, hostB, "move-" + round, durableMib, round));
            }
        }
        String table = table(measured, durableMib);
        System.out.print(table);
        Files.writeString(TestTools.repoRoot().resolve("ateom-microvm/target/adopt-benchmark.md"), table);
    }

    private static Round round(DaemonHarness hostA, DaemonHarness hostB, String id, int durableMib, long seed) throws Exception {
        hostA.createOk(hostA.spec(id, id));
        writeRandom(hostA.stateDir().resolve("sandboxes/" + id + "/durable/data/payload.bin"), durableMib << 20, seed);
        var suspended = hostA.post("/v1/sandboxes/" + id + "/suspend", "{}");
        assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
        String snapshotId = suspended.body().path("snapshotId").asText();
        awaitPushed(hostA, snapshotId);
        hostA.awaitTeardowns();

        ObjectNode adopt = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshotId).put("adopt", true);
        long start = System.nanoTime();
        var adopted = hostB.post("/v1/sandboxes", adopt);
        long adoptMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(adopted.status()).as(adopted.body().toString()).isEqualTo(201);
        assertThat(adopted.body().path("sandbox").path("state").asText()).isEqualTo("RUNNING");

        start = System.nanoTime();
        var resumed = hostA.post("/v1/sandboxes/" + id + "/resume", "{}");
        long resumeMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
        assertThat(resumed.body().path("sandbox").path("state").asText()).isEqualTo("RUNNING");

        assertThat(hostB.delete("/v1/sandboxes/" + id + "?deleteSnapshots=true").status()).isEqualTo(204);
        assertThat(hostA.delete("/v1/sandboxes/" + id + "?deleteSnapshots=true").status()).isEqualTo(204);
        return new Round(adoptMs, resumeMs, adopted.body().path("timingsMs"), resumed.body().path("timingsMs"));
    }

    /** The fixture's store flags, leases off (s3proxy races conditional writes); B may use A's guest images, as a fleet would. */
    private static Map<ConfigOption, String> flags(StoreHosts store, String hostId, boolean pushOnSuspend, Path imageRoot) {
        Map<ConfigOption, String> flags = store.flags(hostId, pushOnSuspend);
        flags.put(ConfigOption.SNAPSHOT_STORE_LEASES, "off");
        if (imageRoot != null) flags.put(ConfigOption.IMAGE_ROOTS, imageRoot.toString());
        return flags;
    }

    private static void writeRandom(Path file, int bytes, long seed) throws IOException {
        byte[] data = new byte[bytes];
        new SplittableRandom(seed).nextBytes(data);
        Files.write(file, data);
    }

    private static String table(List<Round> rounds, int durableMib) {
        long adopt = median(rounds.stream().mapToLong(Round::adoptMs).toArray());
        long resume = median(rounds.stream().mapToLong(Round::resumeMs).toArray());
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
                "adopt on host B vs local resume on host A: none backend, %d MiB random durable data, s3proxy on loopback, %d rounds, %d cores%n%n",
                durableMib, rounds.size(), Runtime.getRuntime().availableProcessors()));
        table.append("| operation | median ms | every round (ms) | x local resume |\n|---|---:|---|---:|\n");
        table.append(String.format(Locale.ROOT, "| local resume on host A | %d | %s | 1.00 |%n", resume, every(rounds, Round::resumeMs)));
        table.append(String.format(Locale.ROOT, "| adopt on host B (pull + verify + restore) | %d | %s | %.2f |%n", adopt,
                every(rounds, Round::adoptMs), adopt / (double) Math.max(1, resume)));
        long pull = median(rounds.stream().mapToLong(round -> round.adoptMs() - round.adoptTimings().path("total").asLong()).toArray());
        table.append(String.format(Locale.ROOT, "| of which before the restore's own timings start (the pull) | %d | %s | |%n", pull,
                every(rounds, round -> round.adoptMs() - round.adoptTimings().path("total").asLong())));
        table.append("\nthe daemon's own timings (timingsMs) of each round:\n");
        for (int i = 0; i < rounds.size(); i++) {
            table.append(String.format(Locale.ROOT, "- round %d: adopt %s; resume %s%n", i + 1, rounds.get(i).adoptTimings(),
                    rounds.get(i).resumeTimings()));
        }
        return table.toString();
    }

    private static String every(List<Round> rounds, ToLongFunction<Round> value) {
        return String.join(" ", rounds.stream().map(round -> Long.toString(value.applyAsLong(round))).toList());
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
