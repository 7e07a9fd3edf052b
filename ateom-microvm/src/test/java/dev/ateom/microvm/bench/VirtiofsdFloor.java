package dev.ateom.microvm.bench;

import dev.ateom.fixtures.virtiofsd.BareVirtiofsdStart;
import dev.ateom.microvm.sandbox.TestTools;
import dev.ateom.virtiofsd.ShareKind;
import dev.ateom.virtiofsd.ShareOptions;
import dev.ateom.virtiofsd.ShareSpec;
import dev.ateom.virtiofsd.VirtiofsdArgv;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The floor virtiofsd sets under every create, resume and clone: a sandbox's three virtiofsd, with the daemon's own
 * command lines, started bare until each serves ({@link BareVirtiofsdStart}). vm.restore and vm.boot connect to all
 * three, so no bring-up can be faster than this plus the hypervisor's own calls.
 */
final class VirtiofsdFloor {
    private VirtiofsdFloor() {}

    /** Milliseconds per round, {@code rounds} rounds in {@code dir}. */
    static Percentiles measure(Path dir, int rounds) throws IOException {
        Path run = Files.createDirectories(dir.resolve("run"));
        List<ShareSpec> specs = new ArrayList<>();
        for (ShareKind kind : ShareKind.values()) {
            specs.add(ShareSpec.inRunDir("floor", kind, Files.createDirectories(dir.resolve(kind.shortName())), run, ShareOptions.DEFAULT));
        }
        double[] millis = new double[rounds];
        for (int i = 0; i < rounds; i++) millis[i] = round(specs);
        return new Percentiles(millis);
    }

    private static double round(List<ShareSpec> specs) throws IOException {
        List<List<String>> commandLines = new ArrayList<>();
        List<Path> leftovers = new ArrayList<>();
        for (ShareSpec spec : specs) {
            commandLines.add(VirtiofsdArgv.of(TestTools.virtiofsd(), spec));
            leftovers.addAll(List.of(spec.socketPath(), spec.pidFile()));
        }
        return BareVirtiofsdStart.millisUntilServing(commandLines, leftovers);
    }
}
