package dev.ateom.microvm.systeminfo;

import dev.ateom.microvm.systeminfo.spec.ActorIdentity;
import dev.ateom.microvm.systeminfo.spec.HostDirectorySource;
import dev.ateom.microvm.systeminfo.spec.SourceSpec;
import dev.ateom.microvm.systeminfo.spec.SystemInfoSpec;
import dev.ateom.microvm.systeminfo.spec.VolumeSpec;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lag from a kubelet-style source update (the {@code ..data} swap) to the new generation being
 * readable in the volume, for 1, 10 and 100 files. Not a test: prints a table.
 * Run: {@code mvn -pl ateom-microvm test -Dtest=SyncLagBenchmark -Dgroups=benchmark -Dsurefire.excludedGroups=none}
 * ({@code -Dateom.bench.updates=N} to change the 1 000 updates per row).
 */
@Tag("benchmark")
class SyncLagBenchmark {
    private static final int UPDATES = Integer.getInteger("ateom.bench.updates", 1000);

    @TempDir
    Path tmp;

    @Test
    void lagFromSourceChangeToCommittedGeneration() throws Exception {
        StringBuilder table = new StringBuilder();
        table.append(String.format("%nsystem-info sync lag, kubelet-style source, default settings (coalesce %d ms), %d updates per row%n",
                SystemInfoSettings.DEFAULT.coalesceWindow().toMillis(), UPDATES));
        table.append(String.format("%-7s %9s %9s %9s %9s%n", "files", "p50 ms", "p90 ms", "p99 ms", "max ms"));
        for (int files : new int[] {1, 10, 100}) {
            double[] lags = measure(files);
            Arrays.sort(lags);
            table.append(String.format("%-7d %9.1f %9.1f %9.1f %9.1f%n",
                    files, pct(lags, 50), pct(lags, 90), pct(lags, 99), lags[lags.length - 1]));
        }
        table.append(String.format("for comparison: kubelet's documented worst case for a Secret/ConfigMap update"
                + " (sync period + cache TTL) 60-90 s; neonvm's poll 30 s; Kata 2 s; goal p99 < 1 s%n"));
        System.out.print(table);
    }

    private double[] measure(int fileCount) throws Exception {
        try (SystemInfoService service = new SystemInfoService(SystemInfoSettings.DEFAULT, new PrometheusRegistry())) {
            KubeletStyleSource source = new KubeletStyleSource(tmp.resolve("src-" + fileCount));
            source.update(payload(fileCount, 0));
            Path root = tmp.resolve("si-" + fileCount);
            VolumeSpec volume = new VolumeSpec("v", null, null, null,
                    List.of(SourceSpec.of(new HostDirectorySource(source.dir().toString(), null))));
            SandboxSystemInfo volumes = service.forSandbox("bench", root, new SystemInfoSpec(List.of(volume)));
            ActorIdentity identity = new ActorIdentity("bench", "bench", "0");
            volumes.writeAll(identity);
            Path probe = root.resolve("v/f0");
            double[] lags = new double[UPDATES];
            try (SystemInfoSync sync = volumes.startSync(identity)) {
                sync.awaitFirstPass(Duration.ofSeconds(10));
                for (int i = 1; i <= UPDATES; i++) {
                    long changed = source.update(payload(fileCount, i));
                    String expected = "generation " + i + " file 0";
                    while (!holds(probe, expected)) {
                        Thread.sleep(0, 200_000);
                        if (System.nanoTime() - changed > Duration.ofSeconds(30).toNanos()) {
                            throw new IllegalStateException("update " + i + " not visible after 30 s: " + sync.failingVolumes());
                        }
                    }
                    lags[i - 1] = (System.nanoTime() - changed) / 1e6;
                }
            }
            return lags;
        }
    }

    private static Map<String, String> payload(int files, int generation) {
        Map<String, String> payload = new TreeMap<>();
        for (int f = 0; f < files; f++) {
            payload.put("f" + f, "generation " + generation + " file " + f);
        }
        return payload;
    }

    private static boolean holds(Path file, String content) {
        try {
            return Files.readString(file).equals(content);
        } catch (IOException e) {
            return false;
        }
    }

    private static double pct(double[] sorted, int percentile) {
        int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(index, sorted.length - 1))];
    }
}
