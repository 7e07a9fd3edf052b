package dev.ateom.microvm.sandbox.operation;

import dev.ateom.jail.SandboxCgroup;
import dev.ateom.microvm.jail.VmmJail;
import dev.ateom.microvm.sandbox.JailRuntime;
import dev.ateom.process.ProcessTree;
import dev.ateom.virtiofsd.ShareConfinement;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A live {@link VmmJail} as recorded in the sandbox's runtime: the VMM's pid and namespaces read from /proc. */
final class JailRuntimes {
    private static final List<String> NAMESPACES = List.of("mnt", "net", "pid", "ipc", "uts");

    private JailRuntimes() {}

    /**
     * @param launcherPid the jail launcher's pid; the VMM is its one child, read from the launcher's own /proc entries
     *                    ({@link ProcessHandle#children()} reads every process on the host: 1.6-2 ms of each jailed
     *                    bring-up here, on its path)
     */
    static JailRuntime of(VmmJail jail, long launcherPid) {
        long vmm = ProcessTree.children(launcherPid).stream().findFirst().map(ProcessHandle::pid).orElse(0L);
        Map<String, String> namespaces = new LinkedHashMap<>();
        if (vmm > 0) {
            for (String ns : NAMESPACES) {
                try {
                    namespaces.put(ns, Files.readSymbolicLink(Path.of("/proc", String.valueOf(vmm), "ns", ns)).toString());
                } catch (IOException e) {
                    // the VMM exited meanwhile: the runtime says so by naming no namespace
                }
            }
        }
        String shares = jail.shares().map(ShareConfinement::name).orElse(null);
        List<String> sharesPaths = jail.shares().map(c -> c.paths().stream().map(Path::toString).toList()).orElse(List.of());
        return jail.cgroup().map(c -> new JailRuntime(jail.uid(), jail.uid(), vmm, c.version(), c.name(), paths(c), namespaces,
                        c.limits().memoryBytes(), c.limits().pidsMax(), Math.max(0, c.limits().cpuQuota()), jail.root().toString(),
                        jail.outbox().toString(), shares, sharesPaths))
                .orElseGet(() -> new JailRuntime(jail.uid(), jail.uid(), vmm, 0, null, List.of(), namespaces, 0, 0, 0,
                        jail.root().toString(), jail.outbox().toString(), shares, sharesPaths));
    }

    private static List<String> paths(SandboxCgroup cgroup) {
        return cgroup.dirs().stream().map(Path::toString).toList();
    }
}
