package dev.ateom.microvm.jail;

import dev.ateom.jail.CgroupDriver;
import dev.ateom.jail.CgroupLimits;
import dev.ateom.jail.SandboxCgroup;
import dev.ateom.microvm.config.JailConfig;
import dev.ateom.process.ProcessTree;
import dev.ateom.virtiofsd.ShareConfinement;
import dev.ateom.virtiofsd.ShareSet;
import dev.ateom.virtiofsd.VirtiofsdProcess;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.System.Logger.Level.WARNING;

/**
 * The cgroup of a jailed sandbox's virtiofsd: one per share set, apart from its VMM's, so that it can be made and
 * joined when the set is started, ahead of the bring-up (a suspend's teardown starts the next resume's shares, and
 * {@code ClonesAhead} a clone's): joining a cgroup waits for an RCU grace period in the kernel (docs/decisions.md,
 * "What the cgroup move costs"), which then stays off the bring-up's path. The VMM keeps its own cgroup (a warm pool
 * member's, or one made for it), limited to the guest's memory and the overhead; the shares' gets the overhead's
 * memory, the pids limit and the sandbox's CPU quota. The set ends it, with whatever still runs in it, once its
 * processes are gone ({@link ShareSet#confine}).
 */
final class ShareCgroups {
    private static final System.Logger LOG = System.getLogger(ShareCgroups.class.getName());
    /** What a share set's cgroup is named: its epoch's jail name (or a clone made ahead's) and this. */
    static final String SUFFIX = "-fs";

    private final CgroupDriver driver;
    private final JailConfig config;
    /** The names of the cgroups that confine a live set: {@code VmmJailer#removeLeftovers} keeps them. */
    private final Set<String> live = ConcurrentHashMap.newKeySet();

    ShareCgroups(CgroupDriver driver, JailConfig config) {
        this.driver = driver;
        this.config = config;
    }

    CgroupLimits limits(int vcpus) {
        return new CgroupLimits(config.memoryOverheadMib() << 20, config.pidsMax(), config.cpuQuotaFor(vcpus));
    }

    /**
     * Makes the cgroup {@code name} and moves every process of {@code shares} into it, each share's whole tree (the
     * serving process is virtiofsd's namespace-sandbox child: the parent is moved first and its children read after, so
     * one forked in between is born inside). On failure the cgroup is removed with what was moved into it.
     */
    void confine(ShareSet shares, String name, int vcpus) {
        // live from before it exists: a sweep for leftovers never takes it for one while the processes move in
        live.add(name);
        SandboxCgroup cgroup;
        try {
            cgroup = driver.create(name, limits(vcpus));
        } catch (RuntimeException e) {
            live.remove(name);
            throw e;
        }
        try {
            for (VirtiofsdProcess share : shares.processes().values()) {
                driver.move(cgroup, share.pid());
                for (long child : share.descendantPids()) moveUnlessGone(cgroup, child);
            }
            shares.confine(confinement(cgroup));
        } catch (RuntimeException e) {
            driver.remove(cgroup);
            live.remove(name);
            throw e;
        }
    }

    /** The cgroup {@code name} of an adopted set, kept as it is; the set ends it as any other. */
    ShareConfinement adopt(String name) {
        live.add(name);
        return confinement(driver.existing(name, new CgroupLimits(1, 1, 0)));
    }

    Set<String> live() {
        return Set.copyOf(live);
    }

    /**
     * A share's descendant read a moment ago may be gone: virtiofsd's short-lived helper (it forks one before the child
     * that serves, and a start returns at the listen, so it may still run), or a serving child that crashed, which
     * ends its parent too and is found as that share's exit.
     */
    private void moveUnlessGone(SandboxCgroup cgroup, long pid) {
        try {
            driver.move(cgroup, pid);
        } catch (RuntimeException e) {
            if (ProcessTree.isRunning(pid)) throw e;
        }
    }

    private ShareConfinement confinement(SandboxCgroup cgroup) {
        return new ShareConfinement() {
            @Override
            public String name() { return cgroup.name(); }

            @Override
            public List<Path> paths() { return cgroup.dirs(); }

            @Override
            public void end() {
                try {
                    if (!driver.remove(cgroup)) LOG.log(WARNING, "the shares' cgroup " + cgroup.dirs() + " is left behind");
                } catch (RuntimeException e) {
                    LOG.log(WARNING, "cannot remove the shares' cgroup " + cgroup.dirs() + ": " + e.getMessage());
                } finally {
                    live.remove(cgroup.name());
                }
            }
        };
    }
}
