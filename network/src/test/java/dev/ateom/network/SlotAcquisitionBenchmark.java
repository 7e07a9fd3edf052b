package dev.ateom.network;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import java.nio.file.Path;
import java.nio.file.Files;
import java.util.logging.Level;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Network setup on the critical path of create/resume/clone: {@link NetworkSlots#acquire} from a ready pool and
 * cold (building the slot on the spot), beside the same slot built with one {@code ip} process per step. Goals:
 * ready ≤ 5 ms median, cold ≤ 50 ms median. Prints a table; asserts nothing about time.
 *
 * <p>Run: {@code mvn -pl network test -Dtest=SlotAcquisitionBenchmark -Dsurefire.excludedGroups=none}
 */
@Tag("benchmark")
class SlotAcquisitionBenchmark {
    private static final int ROUNDS = 30;

    @Test
    void acquisitionTimes() throws IOException {
        // the step, not the test harness's stderr capture (one INFO line per acquire cost 1-5 ms under surefire)
        Logger.getLogger("dev.ateom.network").setLevel(Level.WARNING);
        try (TestNetwork network = TestNetwork.create()) {
            List<Long> ready = new ArrayList<>();
            List<Long> readyWithPolicy = new ArrayList<>();
            NetworkPolicy policy = new NetworkPolicy(new EgressPolicy(List.of(Ipv4Cidr.parse("10.1.0.0/16")), List.of(Ipv4Cidr.parse("198.51.100.0/24"))),
                    List.of(PortRequest.guest(8080)));
            try (NetworkSlots slots = NetworkSlots.open(network.config(4), Set.of())) {
                for (int i = 0; i < ROUNDS; i++) {
                    ready.add(timeAcquire(slots, NetworkPolicy.DEFAULT));
                    readyWithPolicy.add(timeAcquire(slots, policy));
                }
            }
            List<Long> cold = new ArrayList<>();
            try (NetworkSlots slots = NetworkSlots.open(network.config(0), Set.of())) {
                for (int i = 0; i < ROUNDS; i++) {
                    cold.add(timeAcquire(slots, NetworkPolicy.DEFAULT));
                }
            }
            List<Long> baseline = new ArrayList<>();
            String rules = SlotRuleset.create(SlotAddresses.of(Ipv4Cidr.parse("100.72.1.0/24"), 0),
                    EgressRanges.denied(EgressPolicy.DEFAULT, DefaultDenied.withPool(Ipv4Cidr.parse("100.72.0.0/24"))), List.of());
            for (int i = 0; i < ROUNDS; i++) {
                SlotName name = new SlotName(network.prefix(), 100 + i);
                long start = System.nanoTime();
                IpPerStepSlot.build(network.prefix() + "-host", name, SlotAddresses.of(Ipv4Cidr.parse("100.72.1.0/24"), i), rules);
                baseline.add(System.nanoTime() - start);
                IpPerStepSlot.destroy(network.prefix() + "-host", name);
            }
            double base = median(baseline);
            System.out.println();
            System.out.println("network slot acquisition, " + ROUNDS + " rounds each (ms); load average before: " + loadAverage());
            System.out.printf("%-48s %8s %8s %8s %10s%n", "case", "median", "p90", "max", "vs ip/step");
            row("ready pool, default policy", ready, base);
            row("ready pool, egress allow+deny, 1 published port", readyWithPolicy, base);
            row("cold (built on the spot), default policy", cold, base);
            row("baseline: one ip/sysctl/nft process per step", baseline, base);
            System.out.println("goals: ready <= 5 ms median, cold <= 50 ms median (network log output off during the runs)");
            assertThat(ready).hasSize(ROUNDS);
        }
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static long timeAcquire(NetworkSlots slots, NetworkPolicy policy) {
        if (slots.config().readySlots() > 0) {
            assertThat(slots.awaitReady(Duration.ofSeconds(30))).isTrue();
        }
        long start = System.nanoTime();
        Slot slot = slots.acquire("sbx-bench", policy);
        long elapsed = System.nanoTime() - start;
        slots.release(slot);
        return elapsed;
    }

    private static void row(String name, List<Long> nanos, double baselineMedian) {
        System.out.printf("%-48s %8.2f %8.2f %8.2f %9.1fx%n", name, median(nanos) / 1e6, percentile(nanos, 0.9) / 1e6,
                nanos.stream().mapToLong(Long::longValue).max().orElse(0) / 1e6, baselineMedian / median(nanos));
    }

    private static double median(List<Long> nanos) {
        return percentile(nanos, 0.5);
    }

    private static double percentile(List<Long> nanos, double q) {
        List<Long> sorted = nanos.stream().sorted().toList();
        return sorted.get((int) Math.min(sorted.size() - 1, Math.round(q * (sorted.size() - 1))));
    }
}
