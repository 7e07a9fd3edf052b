package dev.ateom.jail;

/**
 * What one sandbox's cgroup allows.
 *
 * @param memoryBytes the memory limit (guest memory plus the VMM's own overhead)
 * @param pidsMax     tasks (processes and threads) at most
 * @param cpuQuota    CPUs worth of time per period, e.g. 2.0 for two vcpus; 0 or less for no limit
 * @param cpuWeight   the cgroup's share of CPU against its siblings when both want more than is free, on cgroup v2's
 *                    scale ({@code cpu.weight}, 1 to 10000, the kernel's default 100); v1 gets it as {@code cpu.shares}
 *                    (default 1024). It only matters under contention: an idle host gives a low-weight cgroup all
 *                    it asks for.
 */
public record CgroupLimits(long memoryBytes, long pidsMax, double cpuQuota, int cpuWeight) {
    /** The CFS period the quota is a share of, in microseconds (the kernel's default). */
    public static final long CPU_PERIOD_MICROS = 100_000;

    /** The kernel's default weight on v2's scale, what every sandbox gets. */
    public static final int DEFAULT_CPU_WEIGHT = 100;

    public CgroupLimits {
        if (memoryBytes <= 0) throw new IllegalArgumentException("memory limit must be positive: " + memoryBytes);
        if (pidsMax <= 0) throw new IllegalArgumentException("pids limit must be positive: " + pidsMax);
        if (cpuWeight < 1 || cpuWeight > 10_000) throw new IllegalArgumentException("cpu weight must be 1 to 10000: " + cpuWeight);
    }

    /** Limits with the kernel's default CPU weight. */
    public CgroupLimits(long memoryBytes, long pidsMax, double cpuQuota) {
        this(memoryBytes, pidsMax, cpuQuota, DEFAULT_CPU_WEIGHT);
    }

    /** The quota in microseconds per {@link #CPU_PERIOD_MICROS}, or -1 for none. */
    public long cpuQuotaMicros() {
        return cpuQuota <= 0 ? -1 : Math.max(1000, Math.round(cpuQuota * CPU_PERIOD_MICROS));
    }

    /** The weight as cgroup v1's {@code cpu.shares}: v2's default 100 is v1's 1024, and v1 takes nothing below 2. */
    public long cpuShares() {
        return Math.max(2, Math.round(cpuWeight * 1024.0 / DEFAULT_CPU_WEIGHT));
    }
}
