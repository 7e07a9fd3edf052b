package dev.ateom.jail;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * cgroup v1: one directory per controller hierarchy (memory, pids, cpu), each under the daemon's parent in that
 * hierarchy. A process joins all three.
 */
public final class CgroupV1Driver implements CgroupDriver {
    private final Path memory;
    private final Path pids;
    private final Path cpu;

    /** @param memory, pids, cpu the daemon's parent directory in each hierarchy (created here) */
    public CgroupV1Driver(Path memory, Path pids, Path cpu) {
        this.memory = memory;
        this.pids = pids;
        this.cpu = cpu;
        parents().forEach(CgroupFiles::mkdirs);
    }

    @Override
    public int version() {
        return 1;
    }

    @Override
    public List<Path> parents() {
        return List.of(memory, pids, cpu);
    }

    @Override
    public SandboxCgroup create(String name, CgroupLimits limits) {
        CgroupFiles.checkName(name);
        SandboxCgroup cgroup = existing(name, limits);
        remove(cgroup);
        try {
            cgroup.dirs().forEach(CgroupFiles::mkdirs);
            writeLimits(name, limits);
        } catch (RuntimeException e) {
            remove(cgroup);
            throw e;
        }
        return cgroup;
    }

    @Override
    public SandboxCgroup limit(SandboxCgroup cgroup, CgroupLimits limits) {
        writeLimits(cgroup.name(), limits);
        return new SandboxCgroup(cgroup.name(), cgroup.version(), cgroup.dirs(), limits);
    }

    private void writeLimits(String name, CgroupLimits limits) {
        CgroupFiles.write(memory.resolve(name).resolve("memory.limit_in_bytes"), String.valueOf(limits.memoryBytes()));
        CgroupFiles.write(pids.resolve(name).resolve("pids.max"), String.valueOf(limits.pidsMax()));
        CgroupFiles.write(cpu.resolve(name).resolve("cpu.cfs_period_us"), String.valueOf(CgroupLimits.CPU_PERIOD_MICROS));
        CgroupFiles.write(cpu.resolve(name).resolve("cpu.cfs_quota_us"), String.valueOf(limits.cpuQuotaMicros()));
        CgroupFiles.write(cpu.resolve(name).resolve("cpu.shares"), String.valueOf(limits.cpuShares()));
    }

    @Override
    public SandboxCgroup existing(String name, CgroupLimits limits) {
        return new SandboxCgroup(name, 1, CgroupFiles.under(parents(), name), limits);
    }

    @Override
    public void move(SandboxCgroup cgroup, long pid) {
        cgroup.dirs().forEach(dir -> CgroupFiles.write(dir.resolve("cgroup.procs"), String.valueOf(pid)));
    }

    @Override
    public List<Long> pids(SandboxCgroup cgroup) {
        return CgroupFiles.pids(cgroup.dirs().getFirst());
    }

    @Override
    public OptionalLong memoryUsage(SandboxCgroup cgroup) {
        return CgroupFiles.readLong(memory.resolve(cgroup.name()).resolve("memory.usage_in_bytes"));
    }

    @Override
    public boolean remove(SandboxCgroup cgroup) {
        boolean all = true;
        for (Path dir : cgroup.dirs()) all &= CgroupFiles.killAndRemove(dir);
        return all;
    }

    @Override
    public List<String> children() {
        return CgroupFiles.children(memory);
    }
}
