package dev.ateom.virtiofsd;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How long starting and stopping a sandbox's three virtiofsd takes, beside the floor: the same three command lines
 * spawned bare (no setpriv, no socket-path checks, readiness seen as the socket file appearing), in the same run.
 * Prints a table; asserts nothing about time.
 */
@Tag("benchmark")
class ShareSetBenchmark {

    private static final int ROUNDS = 30;

    @TempDir
    Path dir;

    @Test
    void startAndStopThreeShares() throws IOException {
        List<ShareSpec> specs = new ArrayList<>();
        Path run = Files.createDirectories(dir.resolve("run"));
        for (ShareKind kind : ShareKind.values()) {
            specs.add(ShareSpec.inRunDir("sb-bench", kind, Files.createDirectories(dir.resolve(kind.shortName())), run, ShareOptions.DEFAULT));
        }
        List<Double> starts = new ArrayList<>();
        List<Double> stops = new ArrayList<>();
        List<Double> bare = new ArrayList<>();
        try (VirtiofsdLauncher launcher = TestVirtiofsd.launcher()) {
            for (int i = 0; i < ROUNDS; i++) {
                long t0 = System.nanoTime();
                ShareSet set = ShareSet.start(launcher, specs);
                long t1 = System.nanoTime();
                set.stop();
                long t2 = System.nanoTime();
                starts.add((t1 - t0) / 1e6);
                stops.add((t2 - t1) / 1e6);
                bare.add(bareStart(launcher, specs));
            }
        }
        System.out.printf("%nShareSet of 3 virtiofsd %s, %d rounds (ms)%n", TestVirtiofsd.binary().version(), ROUNDS);
        System.out.printf("%-24s %8s %8s %8s %8s%n", "operation", "min", "median", "p90", "max");
        row("start (until listening)", starts);
        row("floor: bare spawn of 3", bare);
        row("stop (SIGTERM, reaped)", stops);
        System.out.printf("start / floor (medians): %.2fx%n", median(starts) / median(bare));
    }

    /** The three command lines spawned side by side with nothing around them; ms until every socket file exists. */
    private static double bareStart(VirtiofsdLauncher launcher, List<ShareSpec> specs) throws IOException {
        List<Process> processes = new ArrayList<>();
        long t0 = System.nanoTime();
        try {
            for (ShareSpec spec : specs) {
                processes.add(new ProcessBuilder(VirtiofsdArgv.of(launcher.binary().path(), spec))
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start());
            }
            long deadline = t0 + 10_000_000_000L;
            while (!specs.stream().allMatch(spec -> Files.exists(spec.socketPath()))) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("bare virtiofsd did not listen within 10 s");
                Thread.onSpinWait();
            }
            return (System.nanoTime() - t0) / 1e6;
        } finally {
            for (Process process : processes) {
                // the namespace-sandbox child holds the socket: it must be gone before the next round binds the path
                List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
                tree.add(process.toHandle());
                tree.forEach(ProcessHandle::destroyForcibly);
                tree.forEach(handle -> handle.onExit().join());
            }
            for (ShareSpec spec : specs) {
                Files.deleteIfExists(spec.socketPath());
                Files.deleteIfExists(spec.pidFile());
            }
        }
    }

    private static double median(List<Double> millis) {
        List<Double> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    private static void row(String name, List<Double> millis) {
        List<Double> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        System.out.printf("%-24s %8.1f %8.1f %8.1f %8.1f%n", name, sorted.getFirst(), sorted.get(sorted.size() / 2),
                sorted.get((int) (sorted.size() * 0.9)), sorted.getLast());
    }
}
