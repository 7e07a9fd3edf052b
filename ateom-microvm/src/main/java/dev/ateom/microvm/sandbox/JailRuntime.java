package dev.ateom.microvm.sandbox;

import java.util.List;
import java.util.Map;

/**
 * The jail a sandbox's VMM runs in, as the operator sees it ({@code runtime.jail}) and a restarted daemon adopts it.
 *
 * @param uid           the VMM's uid (its gid is the same number)
 * @param gid           its gid
 * @param vmmPid        the VMM's pid (the jail launcher, {@code chvPid}, is its parent)
 * @param cgroupVersion 1 or 2; 0 when the host offered no cgroup
 * @param cgroup        the cgroup's name under the daemon's parent
 * @param cgroupPaths   its directories (one per v1 hierarchy, or the v2 one)
 * @param namespaces    the VMM's namespaces ({@code mnt}, {@code net}, {@code pid}, {@code ipc}, {@code uts}) as the kernel names them
 * @param memoryBytes   the cgroup's memory limit
 * @param pidsMax       its tasks limit
 * @param cpuQuota      CPUs worth of time (0: none)
 * @param root          the host dir the VMM's root is mounted on; absent in a record of a daemon before it was recorded
 * @param outbox        the dir (this epoch's own) the VMM writes snapshots into; absent as {@code root}
 * @param sharesCgroup  the cgroup of the sandbox's virtiofsd, apart from the VMM's; absent where the host has no cgroup
 *                      and in a record of a daemon before it (the virtiofsd were in the VMM's then)
 * @param sharesCgroupPaths its directories
 */
public record JailRuntime(int uid, int gid, long vmmPid, int cgroupVersion, String cgroup, List<String> cgroupPaths,
                          Map<String, String> namespaces, long memoryBytes, long pidsMax, double cpuQuota, String root, String outbox,
                          String sharesCgroup, List<String> sharesCgroupPaths) {
    public JailRuntime {
        cgroupPaths = cgroupPaths == null ? List.of() : List.copyOf(cgroupPaths);
        sharesCgroupPaths = sharesCgroupPaths == null ? List.of() : List.copyOf(sharesCgroupPaths);
        namespaces = namespaces == null ? Map.of() : Map.copyOf(namespaces);
    }
}
