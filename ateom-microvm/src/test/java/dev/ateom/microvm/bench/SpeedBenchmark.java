package dev.ateom.microvm.bench;

import dev.ateom.microvm.sandbox.TestTools;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * Issue 15's benchmark harness, full size ({@code scripts/bench.sh}): backends {@code none} and {@code qemu} (and
 * {@code chv} when {@code ATEOM_CLOUD_HYPERVISOR} names a real Cloud Hypervisor), 10 cycles, scaling 1/5/10/20, the
 * durable archive and GNU tar on 1 GiB, snapshot write vs dd, system-info sync lag. {@code -Dbench.*} properties
 * change the sizes (see {@link BenchSettings#fromSystemProperties}). Prints tables and asserts nothing about time;
 * everything also goes to {@code bench-results/}.
 */
@Tag("benchmark")
class SpeedBenchmark {
    @TempDir Path work;

    @Test
    void harness() throws Exception {
        Path output = Path.of(System.getProperty("bench.output", TestTools.repoRoot().resolve("bench-results").toString()));
        BenchHarness.Report report = new BenchHarness(BenchSettings.fromSystemProperties(output), work).run();
        System.out.println("\nwritten:");
        report.files().values().forEach(path -> System.out.println("  " + path));
    }
}
