package dev.ateom.microvm.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * What one run of the benchmark harness measures and how much.
 *
 * @param backends        CHV stand-in backends ({@code none}, {@code qemu}) and {@code chv} for the real one
 * @param cycles          lifecycle cycles per operation and backend
 * @param scalingLevels   concurrent sandboxes per scaling step on the stand-in's {@code none} backend; the largest also
 *                        gives "RSS with N sandboxes"
 * @param guestScalingLevels the same for the backends that boot a real guest ({@code qemu}, {@code chv}); empty: none
 * @param scalingRounds   rounds per scaling level (their samples are pooled for the percentiles)
 * @param archiveBytes    size of the tree the durable archive and GNU tar both handle
 * @param archiveRounds   rounds of the archive comparison
 * @param snapshotBytes   guest memory written by the snapshot-write comparison
 * @param syncUpdates     source updates per row of the system-info sync lag
 * @param settle          wait after daemon start before reading its idle RSS (start-up garbage and JIT settle)
 * @param pauses          the pauses inside each lifecycle cycle that make its resumeAfterRun and resumeLater what they are
 * @param readiness       how long a guest may take to boot (TCG guests boot slowly, more so twenty at once)
 * @param daemonArgs      extra daemon flags, e.g. {@code --vmm-pool 0}
 * @param output          where the markdown and the charts go
 * @param baseline        whether the {@code none} backend's lifecycle also runs on a second daemon with the path before
 *                        issue 27 ({@code -Dateom.baseline=before-issue-27}), its cycles interleaved with this one's
 */
public record BenchSettings(List<String> backends, int cycles, List<Integer> scalingLevels, List<Integer> guestScalingLevels,
                            int scalingRounds, long archiveBytes,
                            int archiveRounds, long snapshotBytes, int syncUpdates, Duration settle, CyclePauses pauses,
                            Duration readiness, List<String> daemonArgs, Path output, boolean baseline) {
    /**
     * @param ranBeforeSuspend how long the sandbox runs before the suspend of {@code resumeAfterRun} (past
     *                         {@code --virtiofsd-ahead-running-ms}, so the next virtiofsd may serve by the suspend)
     * @param resumeLater      how long after its suspend {@code resumeLater} comes (its suspend's teardown done by then)
     */
    public record CyclePauses(Duration ranBeforeSuspend, Duration resumeLater) {
        /** What the measuring runs wait. */
        public static final CyclePauses MEASURED = new CyclePauses(Duration.ofMillis(1500), Duration.ofMillis(500));
        /** No pause: for a run that checks only the shape of the output, where the operations' timings mean nothing. */
        public static final CyclePauses NONE = new CyclePauses(Duration.ZERO, Duration.ZERO);
    }

    public BenchSettings {
        backends = List.copyOf(backends);
        scalingLevels = List.copyOf(scalingLevels);
        guestScalingLevels = List.copyOf(guestScalingLevels);
        daemonArgs = List.copyOf(daemonArgs);
    }

    /** The full run ({@code scripts/bench.sh}): system properties {@code bench.*} override the defaults. */
    public static BenchSettings fromSystemProperties(Path output) {
        String defaultBackends = System.getenv("ATEOM_CLOUD_HYPERVISOR") != null ? "none,qemu,chv" : "none,qemu";
        String extra = System.getProperty("bench.daemonArgs", "").strip();
        return new BenchSettings(
                split(System.getProperty("bench.backends", defaultBackends)),
                Integer.getInteger("bench.cycles", 10),
                levels(System.getProperty("bench.scaling", "1,5,10,20")),
                levels(System.getProperty("bench.guestScaling", "1,5,10,20")),
                Integer.getInteger("bench.scalingRounds", 2),
                Long.getLong("bench.archiveMib", 1024) << 20,
                Integer.getInteger("bench.archiveRounds", 3),
                Long.getLong("bench.snapshotMib", 1024) << 20,
                Integer.getInteger("bench.syncUpdates", 200),
                Duration.ofSeconds(6), CyclePauses.MEASURED, Duration.ofSeconds(Integer.getInteger("bench.readinessSeconds", 600)),
                extra.isEmpty() ? List.of() : List.of(extra.split("\\s+")),
                output, Boolean.parseBoolean(System.getProperty("bench.baseline", "true")));
    }

    /** The scaling levels of one backend: the stand-in's {@code none} has no guest to boot, the others do. */
    List<Integer> scalingLevels(String backend) {
        return backend.equals("none") ? scalingLevels : guestScalingLevels;
    }

    private static List<Integer> levels(String csv) {
        return split(csv).stream().map(Integer::parseInt).toList();
    }

    private static List<String> split(String csv) {
        return Arrays.stream(csv.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }
}
