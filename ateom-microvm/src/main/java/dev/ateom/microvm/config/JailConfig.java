package dev.ateom.microvm.config;

import dev.ateom.jail.UidRange;

/**
 * How VMMs are jailed ({@code --jail*}).
 *
 * @param enabled           {@code --jail on}
 * @param uidRange          the uids and gids handed to VMMs, one each
 * @param memoryOverheadMib what a cgroup allows above the guest's memory
 * @param pidsMax           tasks per sandbox cgroup
 * @param cpuQuota          CPUs worth of time per sandbox, {@link #VCPUS} for the sandbox's vcpus, 0 for no limit
 */
public record JailConfig(boolean enabled, UidRange uidRange, long memoryOverheadMib, long pidsMax, double cpuQuota) {
    /** The quota that follows each sandbox's vcpu count. */
    public static final double VCPUS = -1;

    /** The quota for a sandbox with {@code vcpus} vcpus. */
    public double cpuQuotaFor(int vcpus) {
        return cpuQuota == VCPUS ? vcpus : cpuQuota;
    }
}
