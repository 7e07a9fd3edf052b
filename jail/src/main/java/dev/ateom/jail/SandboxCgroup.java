package dev.ateom.jail;

import java.nio.file.Path;
import java.util.List;

/**
 * One sandbox's cgroup: a directory per v1 hierarchy (memory, pids, cpu), or the one v2 directory.
 *
 * @param name    its name under the daemon's parent
 * @param version 1 or 2
 * @param dirs    the directories a process joins (all of them)
 * @param limits  what was written into them
 */
public record SandboxCgroup(String name, int version, List<Path> dirs, CgroupLimits limits) {
    public SandboxCgroup {
        dirs = List.copyOf(dirs);
    }
}
