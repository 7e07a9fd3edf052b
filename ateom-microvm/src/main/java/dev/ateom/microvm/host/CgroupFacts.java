package dev.ateom.microvm.host;

import java.util.List;

/**
 * The host's control groups as mounted.
 *
 * @param version     {@code v2} (the unified hierarchy only), {@code v1} (controller hierarchies only), {@code hybrid}
 *                    (v1 controllers beside a cgroup2 mount) or {@code none}
 * @param controllers the controllers available: the v1 hierarchies' for v1 and hybrid, the unified root's for v2
 */
public record CgroupFacts(String version, List<String> controllers) {
    public CgroupFacts {
        controllers = List.copyOf(controllers);
    }
}
