package dev.ateom.microvm.bench;

import dev.ateom.microvm.sandbox.TestTools;
import dev.ateom.process.ProcessTree;
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
 * command lines, spawned side by side and bare (no parent-death wrapper, no socket-path checks, no bookkeeping) until
 * each serves, that is until a process of its tree has entered virtiofsd's seccomp filter, the last step of its set-up.
 * vm.restore and vm.boot connect to all three, so no bring-up can be faster than this plus the hypervisor's own calls.
 */
final class VirtiofsdFloor {
    private VirtiofsdFloor() {}

    /** Milliseconds per round, {@code rounds} rounds in {@code dir}. */
    static Percentiles measure(Path dir, int rounds) throws IOException, InterruptedException {
        Path run = Files.createDirectories(dir.resolve("run"));
        List<ShareSpec> specs = new ArrayList<>();
        for (ShareKind kind : ShareKind.values()) {
            specs.add(ShareSpec.inRunDir("floor", kind, Files.createDirectories(dir.resolve(kind.shortName())), run, ShareOptions.DEFAULT));
        }
        double[] millis = new double[rounds];
        for (int i = 0; i < rounds; i++) millis[i] = round(specs);
        return new Percentiles(millis);
    }

    private static double round(List<ShareSpec> specs) throws IOException, InterruptedException {
        List<Process> processes = new ArrayList<>();
        long start = System.nanoTime();
        try {
            for (ShareSpec spec : specs) {
                processes.add(new ProcessBuilder(VirtiofsdArgv.of(TestTools.virtiofsd(), spec))
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start());
            }
            long deadline = start + 10_000_000_000L;
            while (!processes.stream().allMatch(VirtiofsdFloor::serves)) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("bare virtiofsd did not serve within 10 s");
                Thread.onSpinWait();
            }
            return (System.nanoTime() - start) / 1e6;
        } finally {
            for (Process process : processes) {
                List<ProcessHandle> tree = new ArrayList<>(ProcessTree.descendants(process.pid()));
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

    private static boolean serves(Process process) {
        List<ProcessHandle> tree = new ArrayList<>(ProcessTree.descendants(process.pid()));
        tree.add(process.toHandle());
        return tree.stream().anyMatch(member -> {
            try {
                return Files.readString(Path.of("/proc", Long.toString(member.pid()), "status")).contains("Seccomp:\t2");
            } catch (IOException gone) {
                return false;
            }
        });
    }
}
