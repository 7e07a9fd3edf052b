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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Lag from a kubelet-style source update (the {@code ..data} swap of 1, 10 or 100 files at once) to the new generation
 * being readable in a sandbox's system-info volume dir, which is what virtio-fs serves the guest. {@link #measure} runs
 * the daemon's sync service in this JVM ({@link SyncLagBenchmark}); the benchmark harness runs {@link #lags} against a
 * sandbox of a running daemon.
 */
public final class SyncLag {
    private SyncLag() {
    }

    /** One row: the files changed at once and the sorted lags in ms. */
    public record Row(int files, double[] sortedLags) {
        public double percentile(int percentile) {
            int index = (int) Math.ceil(percentile / 100.0 * sortedLags.length) - 1;
            return sortedLags[Math.max(0, Math.min(index, sortedLags.length - 1))];
        }
    }

    /** Every row of one run; {@code where} says what was measured. */
    public record Result(String where, int updates, List<Row> rows) {
        /** A markdown table: p50/p90/p99/max per file count. */
        public String markdown() {
            StringBuilder table = new StringBuilder();
            table.append(String.format("%nSystem-info sync lag: host source change → visible in %s (default coalesce %d ms),"
                    + " %d updates per row%n%n", where, SystemInfoSettings.DEFAULT.coalesceWindow().toMillis(), updates));
            table.append("| files changed at once | p50 ms | p90 ms | p99 ms | max ms | goal p99 | met |\n|---:|---:|---:|---:|---:|---|---|\n");
            for (Row row : rows) {
                table.append(String.format("| %d | %.1f | %.1f | %.1f | %.1f | < 1000 ms | %s |%n", row.files(), row.percentile(50),
                        row.percentile(90), row.percentile(99), row.sortedLags()[row.sortedLags().length - 1],
                        row.percentile(99) < 1000 ? "met" : "not met"));
            }
            table.append("\nfor comparison: kubelet's documented worst case for a Secret/ConfigMap update (sync period + cache TTL)"
                    + " 60-90 s; neonvm's poll 30 s; Kata 2 s\n");
            return table.toString();
        }
    }

    /** {@code updates} source updates per file count, each waited for in the volume before the next. */
    public static Result measure(Path tmp, int updates, int... fileCounts) throws Exception {
        List<Row> rows = new ArrayList<>();
        for (int files : fileCounts) {
            double[] lags = measure(tmp, updates, files);
            Arrays.sort(lags);
            rows.add(new Row(files, lags));
        }
        return new Result("the volume dir (the daemon's sync service in this JVM)", updates, rows);
    }

    private static double[] measure(Path tmp, int updates, int fileCount) throws Exception {
        try (SystemInfoService service = new SystemInfoService(SystemInfoSettings.DEFAULT, new PrometheusRegistry())) {
            KubeletStyleSource source = new KubeletStyleSource(tmp.resolve("src-" + fileCount));
            source.update(payload(fileCount, 0));
            Path root = tmp.resolve("si-" + fileCount);
            VolumeSpec volume = new VolumeSpec("v", null, null, null,
                    List.of(SourceSpec.of(new HostDirectorySource(source.dir().toString(), null))));
            SandboxSystemInfo volumes = service.forSandbox("bench", root, new SystemInfoSpec(List.of(volume)));
            ActorIdentity identity = new ActorIdentity("bench", "bench", "0");
            volumes.writeAll(identity);
            try (SystemInfoSync sync = volumes.startSync(identity)) {
                sync.awaitFirstPass(Duration.ofSeconds(10));
                return lags(source, root.resolve("v"), fileCount, updates);
            }
        }
    }

    /**
     * Updates {@code source} (already holding {@link #payload} generation 0) {@code updates} times, each time waiting
     * until {@code volumeDir} shows the new generation; the lags in ms.
     */
    public static double[] lags(KubeletStyleSource source, Path volumeDir, int fileCount, int updates) throws Exception {
        Path probe = volumeDir.resolve("f0");
        double[] lags = new double[updates];
        for (int i = 1; i <= updates; i++) {
            long changed = source.update(payload(fileCount, i));
            String expected = "generation " + i + " file 0";
            while (!holds(probe, expected)) {
                Thread.sleep(0, 200_000);
                if (System.nanoTime() - changed > Duration.ofSeconds(30).toNanos()) {
                    throw new IllegalStateException("update " + i + " not visible in " + volumeDir + " after 30 s");
                }
            }
            lags[i - 1] = (System.nanoTime() - changed) / 1e6;
        }
        return lags;
    }

    /** {@code files} files f0, f1, … whose content names the generation. */
    public static Map<String, String> payload(int files, int generation) {
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
}
