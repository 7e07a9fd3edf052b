package dev.ateom.jail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * cgroup v2: one directory per sandbox under the daemon's parent, the controllers this host offers enabled for
 * it. A limit whose controller the host lacks is not written (the caller was told which are available).
 */
public final class CgroupV2Driver implements CgroupDriver {
    private final Path parent;
    private final Set<String> controllers;

    /**
     * @param parent      the daemon's parent directory (created here, its controllers enabled from the mount's root down)
     * @param controllers the controllers of {@code memory, pids, cpu} the mount offers
     */
    public CgroupV2Driver(Path parent, Set<String> controllers) {
        this.parent = parent;
        this.controllers = Set.copyOf(controllers);
        CgroupFiles.mkdirs(parent);
        enableControllers(parent.getParent());
        enableControllers(parent);
    }

    private void enableControllers(Path dir) {
        for (String controller : controllers) {
            CgroupFiles.write(dir.resolve("cgroup.subtree_control"), "+" + controller);
        }
    }

    @Override
    public int version() {
        return 2;
    }

    @Override
    public List<Path> parents() {
        return List.of(parent);
    }

    /** The controllers whose limits this driver writes. */
    public Set<String> controllers() {
        return controllers;
    }

    @Override
    public SandboxCgroup create(String name, CgroupLimits limits) {
        CgroupFiles.checkName(name);
        SandboxCgroup cgroup = existing(name, limits);
        remove(cgroup);
        try {
            CgroupFiles.mkdirs(parent.resolve(name));
            writeLimits(parent.resolve(name), limits);
        } catch (RuntimeException e) {
            remove(cgroup);
            throw e;
        }
        return cgroup;
    }

    @Override
    public SandboxCgroup limit(SandboxCgroup cgroup, CgroupLimits limits) {
        writeLimits(cgroup.dirs().getFirst(), limits);
        return new SandboxCgroup(cgroup.name(), cgroup.version(), cgroup.dirs(), limits);
    }

    private void writeLimits(Path dir, CgroupLimits limits) {
        if (controllers.contains("memory")) {
            CgroupFiles.write(dir.resolve("memory.max"), String.valueOf(limits.memoryBytes()));
            if (Files.exists(dir.resolve("memory.swap.max"))) CgroupFiles.write(dir.resolve("memory.swap.max"), "0");
        }
        if (controllers.contains("pids")) CgroupFiles.write(dir.resolve("pids.max"), String.valueOf(limits.pidsMax()));
        if (controllers.contains("cpu")) {
            long quota = limits.cpuQuotaMicros();
            CgroupFiles.write(dir.resolve("cpu.max"), (quota < 0 ? "max" : String.valueOf(quota)) + " " + CgroupLimits.CPU_PERIOD_MICROS);
            CgroupFiles.write(dir.resolve("cpu.weight"), String.valueOf(limits.cpuWeight()));
        }
    }

    @Override
    public SandboxCgroup existing(String name, CgroupLimits limits) {
        return new SandboxCgroup(name, 2, List.of(parent.resolve(name)), limits);
    }

    @Override
    public void move(SandboxCgroup cgroup, long pid) {
        CgroupFiles.write(cgroup.dirs().getFirst().resolve("cgroup.procs"), String.valueOf(pid));
    }

    @Override
    public List<Long> pids(SandboxCgroup cgroup) {
        return CgroupFiles.pids(cgroup.dirs().getFirst());
    }

    @Override
    public OptionalLong memoryUsage(SandboxCgroup cgroup) {
        return CgroupFiles.readLong(cgroup.dirs().getFirst().resolve("memory.current"));
    }

    @Override
    public boolean remove(SandboxCgroup cgroup) {
        Path dir = cgroup.dirs().getFirst();
        // cgroup.kill (5.14+) takes the whole subtree at once; the per-pid kill below covers older kernels
        if (Files.exists(dir.resolve("cgroup.kill"))) {
            try {
                CgroupFiles.write(dir.resolve("cgroup.kill"), "1");
            } catch (RuntimeException e) {
                // removed meanwhile, or not writable: the per-pid kill follows
            }
        }
        return CgroupFiles.killAndRemove(dir);
    }

    @Override
    public List<String> children() {
        return CgroupFiles.children(parent);
    }
}
