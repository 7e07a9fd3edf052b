package dev.ateom.virtiofsd;

import dev.ateom.process.ParentDeathWrapper;
import dev.ateom.process.ProcessTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the parent-death wrapper adds to a sandbox's three virtiofsd starting side by side: the same three command lines
 * bare, behind setpriv (dynamic, loads libcap-ng) and behind the static ateom-die-with-parent, their turns rotating in
 * every round so that each sees the same host. Measured until each listens (where {@link VirtiofsdLauncher#start}
 * returns and a VMM may connect) and until each serves (its tree under virtiofsd's seccomp filter), polling with
 * 0.2 ms sleeps (a spinning poll would take one of the cores the starts need). Prints a table with the ratios to
 * setpriv; asserts nothing about time.
 */
@Tag("benchmark")
class ParentDeathWrapperBenchmark {

    private static final int ROUNDS = 40;

    @TempDir
    Path dir;

    @Test
    void threeSharesBehindEachWrapper() throws IOException, InterruptedException {
        List<ShareSpec> specs = new ArrayList<>();
        Path run = Files.createDirectories(dir.resolve("run"));
        for (ShareKind kind : ShareKind.values()) {
            specs.add(ShareSpec.inRunDir("sb-bench", kind, Files.createDirectories(dir.resolve(kind.shortName())), run, ShareOptions.DEFAULT));
        }
        ParentDeathWrapper helper = ParentDeathWrapper.find().filter(ParentDeathWrapper::helper).orElseThrow();
        ParentDeathWrapper setpriv = new ParentDeathWrapper(ParentDeathWrapper.SETPRIV, false);
        Map<String, UnaryOperator<List<String>>> wrappers = new LinkedHashMap<>();
        wrappers.put("setpriv --pdeathsig", setpriv::wrap);
        wrappers.put("ateom-die-with-parent", helper::wrap);
        wrappers.put("bare (no signal)", argv -> argv);
        Map<String, List<double[]>> millis = new LinkedHashMap<>();
        wrappers.keySet().forEach(name -> millis.put(name, new ArrayList<>()));
        List<String> names = List.copyOf(wrappers.keySet());
        try (VirtiofsdLauncher launcher = TestVirtiofsd.launcher()) {
            for (int round = 0; round < ROUNDS; round++) {
                for (int turn = 0; turn < names.size(); turn++) {
                    String name = names.get((round + turn) % names.size());
                    millis.get(name).add(start(launcher, specs, wrappers.get(name)));
                }
            }
        }
        System.out.printf("%nThree virtiofsd %s started side by side, %d rounds each (ms)%n", TestVirtiofsd.binary().version(), ROUNDS);
        System.out.printf("| %-22s | %14s | %14s | %14s | %14s |%n", "wrapper", "listen p50", "listen / setpriv", "serve p50", "serve / setpriv");
        System.out.printf("|%s|%s|%s|%s|%s|%n", "-".repeat(24), "-".repeat(16), "-".repeat(18), "-".repeat(16), "-".repeat(17));
        double listenSetpriv = median(millis.get("setpriv --pdeathsig"), 0);
        double serveSetpriv = median(millis.get("setpriv --pdeathsig"), 1);
        millis.forEach((name, values) -> System.out.printf("| %-22s | %14.1f | %15.2fx | %14.1f | %14.2fx |%n", name,
                median(values, 0), median(values, 0) / listenSetpriv, median(values, 1), median(values, 1) / serveSetpriv));
    }

    /** ms from the first spawn until all three listen, and until all three serve; every process is gone again after. */
    private static double[] start(VirtiofsdLauncher launcher, List<ShareSpec> specs, UnaryOperator<List<String>> wrapper)
            throws IOException, InterruptedException {
        List<Process> processes = new ArrayList<>();
        long t0 = System.nanoTime();
        try {
            for (ShareSpec spec : specs) {
                List<String> argv = wrapper.apply(VirtiofsdArgv.of(launcher.binary().path(), spec));
                processes.add(new ProcessBuilder(argv).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start());
            }
            awaitAll(() -> specs.stream().allMatch(spec -> Files.exists(spec.socketPath())));
            double listening = (System.nanoTime() - t0) / 1e6;
            awaitAll(() -> processes.stream().allMatch(process -> treeOf(process).stream().anyMatch(p -> LinuxProcess.underSeccompFilter(p.pid()))));
            return new double[] {listening, (System.nanoTime() - t0) / 1e6};
        } finally {
            for (Process process : processes) {
                List<ProcessHandle> tree = treeOf(process);
                tree.forEach(ProcessHandle::destroyForcibly);
                tree.forEach(handle -> handle.onExit().join());
            }
            for (ShareSpec spec : specs) {
                Files.deleteIfExists(spec.socketPath());
                Files.deleteIfExists(spec.pidFile());
            }
        }
    }

    private static void awaitAll(BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("virtiofsd did not get there within 10 s");
            Thread.sleep(0, 200_000);
        }
    }

    private static List<ProcessHandle> treeOf(Process process) {
        List<ProcessHandle> tree = new ArrayList<>(ProcessTree.descendants(process.pid()));
        tree.addFirst(process.toHandle());
        return tree;
    }

    private static double median(List<double[]> millis, int column) {
        List<Double> sorted = new ArrayList<>(millis.stream().map(pair -> pair[column]).toList());
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
