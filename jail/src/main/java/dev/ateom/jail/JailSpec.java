package dev.ateom.jail;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Everything one jail is made of: who the program runs as, what its root holds, which network and cgroups it
 * joins, its limits and its Landlock paths. {@link JailCommand} turns it into the launcher's argv.
 *
 * @param uid         the program's uid, never 0
 * @param gid         the program's gid, never 0
 * @param kvmGid      the one supplementary group, when {@code /dev/kvm} needs it
 * @param root        a host directory the launcher mounts the jail's tmpfs root on (it stays empty on the host)
 * @param mountPoints empty tmpfs dirs (root's, 0755) mounted before the binds, where files are bound in after the start
 *                    ({@link JailCommand#inject}); a warm pool member's sandbox paths are not known when it starts
 * @param binds       host paths visible inside the root, in mount order (a parent before what is mounted below it)
 * @param devices     device nodes bound at their own path ({@code /dev/null}, {@code /dev/urandom}, {@code /dev/kvm})
 * @param netns       a network namespace to enter ({@code /run/netns/<slot>}), or empty for a new one without a network
 * @param cgroups     cgroup directories to join (one per v1 hierarchy, or the one v2 directory)
 * @param rlimits     limits set before the program runs
 * @param landlockRw  paths the program may read and write (Landlock, where the kernel has it)
 * @param landlockRo  paths the program may read and execute
 * @param procfs      whether the root gets a {@code /proc} (of the jail's own pid namespace only)
 * @param denyTcp     whether Landlock also forbids TCP bind and connect (kernels with Landlock ABI 4)
 */
public record JailSpec(int uid, int gid, OptionalInt kvmGid, Path root, List<Path> mountPoints, List<BindMount> binds, List<Path> devices, Optional<Path> netns,
                       List<Path> cgroups, Map<Rlimit, Long> rlimits, List<Path> landlockRw, List<Path> landlockRo, boolean procfs,
                       boolean denyTcp) {
    public JailSpec {
        if (uid <= 0 || gid <= 0) throw new IllegalArgumentException("a jail never runs as uid or gid 0 (uid " + uid + ", gid " + gid + ")");
        Objects.requireNonNull(root, "root");
        if (!root.isAbsolute()) throw new IllegalArgumentException("jail root must be absolute: " + root);
        kvmGid = kvmGid == null ? OptionalInt.empty() : kvmGid;
        netns = netns == null ? Optional.empty() : netns;
        mountPoints = List.copyOf(mountPoints);
        for (Path p : mountPoints) if (!p.isAbsolute()) throw new IllegalArgumentException("mount point must be absolute: " + p);
        binds = List.copyOf(binds);
        devices = List.copyOf(devices);
        cgroups = List.copyOf(cgroups);
        rlimits = Map.copyOf(rlimits);
        landlockRw = List.copyOf(landlockRw);
        landlockRo = List.copyOf(landlockRo);
    }

    /** A jail without mount points: everything it sees is bound at its start. */
    public JailSpec(int uid, int gid, OptionalInt kvmGid, Path root, List<BindMount> binds, List<Path> devices, Optional<Path> netns,
                    List<Path> cgroups, Map<Rlimit, Long> rlimits, List<Path> landlockRw, List<Path> landlockRo, boolean procfs,
                    boolean denyTcp) {
        this(uid, gid, kvmGid, root, List.of(), binds, devices, netns, cgroups, rlimits, landlockRw, landlockRo, procfs, denyTcp);
    }
}
