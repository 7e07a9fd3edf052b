package dev.ateom.virtiofsd;

/**
 * Confines a share set's processes as each one starts ({@link ShareSet#start(VirtiofsdLauncher, java.util.List,
 * ShareConfiner)}): a share moved in the moment it listens, while the others are still starting, so what the move waits
 * for (a cgroup's first join waits for an RCU grace period in the kernel) overlaps their starts instead of following
 * them. One use.
 */
public interface ShareConfiner {
    /** Confines one started process (its whole tree); called on that share's start thread. */
    void add(VirtiofsdProcess process);

    /** Every share was added: the confinement the set owns from now on ({@link ShareSet#confine}). */
    ShareConfinement done();

    /** The start failed: undoes the confinement (the processes added are being stopped). Never throws. */
    void abandon();
}
