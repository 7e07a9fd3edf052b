package dev.ateom.jail;

/**
 * What one sandbox's cgroup allows.
 *
 * @param memoryBytes the memory limit (guest memory plus the VMM's own overhead)
 * @param pidsMax     tasks (processes and threads) at most
 * @param cpuQuota    CPUs worth of time per period, e.g. 2.0 for two vcpus; 0 or less for no limit
 */
public record CgroupLimits(long memoryBytes, long pidsMax, double cpuQuota) {
    /** The CFS period the quota is a share of, in microseconds (the kernel's default). */
    public static final long CPU_PERIOD_MICROS = 100_000;

    public CgroupLimits {
        if (memoryBytes <= 0) throw new IllegalArgumentException("memory limit must be positive: " + memoryBytes);
        if (pidsMax <= 0) throw new IllegalArgumentException("pids limit must be positive: " + pidsMax);
    }

    /** The quota in microseconds per {@link #CPU_PERIOD_MICROS}, or -1 for none. */
    public long cpuQuotaMicros() {
        return cpuQuota <= 0 ? -1 : Math.max(1000, Math.round(cpuQuota * CPU_PERIOD_MICROS));
    }
}
