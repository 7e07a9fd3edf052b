package dev.ateom.virtiofsd;

import dev.ateom.fixtures.virtiofsd.BareVirtiofsdStart;
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
 * started bare until each serves ({@link BareVirtiofsdStart}), in the same run. Prints a table; asserts nothing about time.
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
        row("start (until serving)", starts);
        row("floor: bare start of 3", bare);
        row("stop (SIGTERM, reaped)", stops);
        System.out.printf("start / floor (medians): %.2fx%n", median(starts) / median(bare));
    }

    /** The three command lines started bare, side by side ({@link BareVirtiofsdStart}); ms until every one serves. */
    private static double bareStart(VirtiofsdLauncher launcher, List<ShareSpec> specs) throws IOException {
        List<List<String>> commandLines = new ArrayList<>();
        List<Path> leftovers = new ArrayList<>();
        for (ShareSpec spec : specs) {
            commandLines.add(VirtiofsdArgv.of(launcher.binary().path(), spec));
            leftovers.addAll(List.of(spec.socketPath(), spec.pidFile()));
        }
        return BareVirtiofsdStart.millisUntilServing(commandLines, leftovers);
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
