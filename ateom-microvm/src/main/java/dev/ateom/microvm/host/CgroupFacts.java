package dev.ateom.microvm.host;

import java.util.List;

/**
 * The host's control groups as mounted.
 *
 * @param version     {@code v2} (the unified hierarchy only), {@code v1} (controller hierarchies only), {@code hybrid}
 *                    (v1 controllers beside a cgroup2 mount) or {@code none}
 * @param controllers the controllers available: the v1 hierarchies' for v1 and hybrid, the unified root's for v2
 * @param favorDynmods whether a cgroup mount has the {@code favordynmods} option, which makes moving a process into a
 *                     cgroup cheap: without it the first move after a quiet moment waits for an RCU grace period
 *                     (6.5-21 ms measured here, against 0.3 ms with it), which the jail pays moving a sandbox's virtiofsd
 *                     (docs/decisions.md, "VMM jail"). It is one switch for the whole host, whichever mount has it; the
 *                     kernel's price is forks and exits a little slower.
 */
public record CgroupFacts(String version, List<String> controllers, boolean favorDynmods) {
    public CgroupFacts {
        controllers = List.copyOf(controllers);
    }
}
