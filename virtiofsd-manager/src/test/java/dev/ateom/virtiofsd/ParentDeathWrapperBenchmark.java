package dev.ateom.virtiofsd;

import dev.ateom.fixtures.virtiofsd.BareVirtiofsdStart;
import dev.ateom.fixtures.virtiofsd.BareVirtiofsdStart.ListenAndServe;
import dev.ateom.process.ParentDeathWrapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the parent-death wrapper adds to a sandbox's three virtiofsd starting side by side: the same three command lines
 * bare, behind setpriv (dynamic, loads libcap-ng) and behind the static ateom-die-with-parent, their turns rotating in
 * every round so that each sees the same host. Measured until each listens (where {@link VirtiofsdLauncher#start}
 * returns and a VMM may connect) and until each serves ({@link BareVirtiofsdStart#millisUntilListeningAndServing}).
 * Prints a table with the ratios to setpriv; asserts nothing about time.
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
        Map<String, List<ListenAndServe>> millis = new LinkedHashMap<>();
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
        double listenSetpriv = median(millis.get("setpriv --pdeathsig"), ListenAndServe::listening);
        double serveSetpriv = median(millis.get("setpriv --pdeathsig"), ListenAndServe::serving);
        millis.forEach((name, values) -> System.out.printf("| %-22s | %14.1f | %15.2fx | %14.1f | %14.2fx |%n", name,
                median(values, ListenAndServe::listening), median(values, ListenAndServe::listening) / listenSetpriv,
                median(values, ListenAndServe::serving), median(values, ListenAndServe::serving) / serveSetpriv));
    }

    private static ListenAndServe start(VirtiofsdLauncher launcher, List<ShareSpec> specs, UnaryOperator<List<String>> wrapper)
            throws IOException, InterruptedException {
        List<List<String>> commandLines = new ArrayList<>();
        List<Path> leftovers = new ArrayList<>();
        for (ShareSpec spec : specs) {
            commandLines.add(wrapper.apply(VirtiofsdArgv.of(launcher.binary().path(), spec)));
            leftovers.addAll(List.of(spec.socketPath(), spec.pidFile()));
        }
        return BareVirtiofsdStart.millisUntilListeningAndServing(commandLines, specs.stream().map(ShareSpec::socketPath).toList(), leftovers);
    }

    private static double median(List<ListenAndServe> millis, ToDoubleFunction<ListenAndServe> column) {
        List<Double> sorted = new ArrayList<>(millis.stream().map(column::applyAsDouble).toList());
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
