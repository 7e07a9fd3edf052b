package dev.ateom.chv;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-call wall time through {@link ChvClient} for a full suspend/resume cycle, beside real CHV v54's medians
 * from {@code chv-samples/README.md} (curl included there). Prints a table; asserts nothing about time.
 * Run: {@code mvn -pl chv-client test -Dgroups=benchmark -Dsurefire.excludedGroups=none}.
 */
@Tag("benchmark")
class ChvCallTimingsBenchmarkTest {
    private static final Map<String, Double> RECORDED_MEDIAN_MS = Map.of("vm.create", 14.0, "vm.boot", 55.0, "vm.pause", 10.0,
            "vm.snapshot", 38.0, "vm.shutdown", 24.0, "vm.restore", 45.0, "vm.resume", 13.0);
    private static final int CYCLES = 5;

    @TempDir
    Path dir;

    @Test
    void suspendResumeCycle() throws Exception {
        Map<String, List<Double>> samples = new LinkedHashMap<>();
        List<Double> vmmStart = new ArrayList<>();
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            Path snap = Files.createDirectory(dir.resolve("snap" + cycle));
            long t0 = System.nanoTime();
            try (ChvProcess source = ChvUnderTest.start(dir, "s" + cycle); SandboxShares shares = SandboxShares.start(dir, "a" + cycle)) {
                vmmStart.add((System.nanoTime() - t0) / 1e6);
                ChvClient chv = source.client();
                VmConfig config = shares.config("a" + cycle);
                time(samples, "vm.create", () -> chv.create(config));
                time(samples, "vm.boot", chv::boot);
                time(samples, "vm.pause", chv::pause);
                time(samples, "vm.snapshot", () -> chv.snapshot(snap));
                time(samples, "vm.shutdown", chv::shutdown);
            }
            try (SandboxShares fresh = SandboxShares.start(dir, "b" + cycle); ChvProcess target = ChvUnderTest.start(dir, "t" + cycle)) {
                String config = Files.readString(snap.resolve("config.json")).replace(dir + "/a" + cycle + "-", dir + "/b" + cycle + "-");
                Files.writeString(snap.resolve("config.json"), config);
                ChvClient chv = target.client();
                time(samples, "vm.restore", () -> chv.restore(RestoreConfig.fromDirectory(snap, MemoryRestoreMode.Copy)));
                time(samples, "vm.resume", chv::resume);
            }
        }
        System.out.println("\nCHV call timings, " + ChvUnderTest.describe() + ", " + CYCLES + " cycles, 256 MiB guest, 3 real virtiofsd");
        System.out.printf("%-12s %10s %10s %10s %22s%n", "call", "median ms", "min ms", "max ms", "real CHV v54 median ms");
        samples.forEach((call, ms) -> System.out.printf("%-12s %10.1f %10.1f %10.1f %22.1f%n", call, median(ms),
                ms.stream().mapToDouble(d -> d).min().orElse(0), ms.stream().mapToDouble(d -> d).max().orElse(0), RECORDED_MEDIAN_MS.get(call)));
        System.out.printf("%-12s %10.1f   (process start until vmm.ping answers)%n", "vmm start", median(vmmStart));
    }

    private interface Call {
        void run() throws Exception;
    }

    private static void time(Map<String, List<Double>> samples, String name, Call call) throws Exception {
        long t0 = System.nanoTime();
        call.run();
        samples.computeIfAbsent(name, k -> new ArrayList<>()).add((System.nanoTime() - t0) / 1e6);
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
