package dev.ateom.jail;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * Creates, limits and removes the per-sandbox cgroups under one daemon-owned parent ({@code ateom-<hash>}), on
 * cgroup v2 or on v1's separate memory, pids and cpu hierarchies.
 */
public interface CgroupDriver {
    /** 1 or 2. */
    int version();

    /** The parent directories (one per hierarchy) this daemon's cgroups live under. */
    List<Path> parents();

    /** A new cgroup {@code name} with {@code limits} written; an existing one of that name is removed first. */
    SandboxCgroup create(String name, CgroupLimits limits);

    /**
     * The cgroup with {@code limits} written over its own (a warm pool member's cgroup becoming its sandbox's); a
     * memory limit below what it uses now is refused by the kernel.
     */
    SandboxCgroup limit(SandboxCgroup cgroup, CgroupLimits limits);

    /** The cgroup {@code name} as it exists (after a daemon restart), its limits as recorded by the caller. */
    SandboxCgroup existing(String name, CgroupLimits limits);

    /** Moves {@code pid} (every thread of it) into the cgroup. */
    void move(SandboxCgroup cgroup, long pid);

    /** The pids in it (from the first directory). */
    List<Long> pids(SandboxCgroup cgroup);

    /** Bytes of memory the cgroup uses now, when readable. */
    OptionalLong memoryUsage(SandboxCgroup cgroup);

    /** Kills whatever still runs in it (bounded wait), then removes its directories; true when all are gone. */
    boolean remove(SandboxCgroup cgroup);

    /** The names of the cgroups under the parent (a killed daemon's leftovers, at start). */
    List<String> children();
}
