package dev.ateom.jail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The host's cgroup file systems, from {@code /proc/self/mounts}: the v2 mount (the root on a unified host, or
 * the {@code unified} mount beside v1's hierarchies) with the controllers it offers, and the v1 hierarchy of each
 * controller. Which one a daemon uses is {@link #driver}'s choice: v2 when it has memory, pids and cpu, else v1.
 *
 * @param v2            the cgroup2 mount point, if any
 * @param v2Controllers the controllers its root offers ({@code cgroup.controllers})
 * @param v1            the mount point of each v1 controller (memory, pids, cpu, ...)
 */
public record CgroupMounts(Optional<Path> v2, Set<String> v2Controllers, Map<String, Path> v1) {
    /** The controllers a sandbox's limits need. */
    public static final Set<String> NEEDED = Set.of("memory", "pids", "cpu");

    public CgroupMounts {
        v2Controllers = Set.copyOf(v2Controllers);
        v1 = Map.copyOf(v1);
    }

    /** This host's mounts. */
    public static CgroupMounts ofHost() {
        try {
            return parse(Files.readAllLines(Path.of("/proc/self/mounts")), CgroupMounts::readControllers);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/self/mounts", e);
        }
    }

    static CgroupMounts parse(List<String> mounts, Function<Path, Set<String>> controllersOf) {
        Optional<Path> v2 = Optional.empty();
        Map<String, Path> v1 = new LinkedHashMap<>();
        for (String line : mounts) {
            String[] f = line.split(" ");
            if (f.length < 4) continue;
            Path at = Path.of(f[1].replace("\\040", " "));
            if (f[2].equals("cgroup2") && v2.isEmpty()) v2 = Optional.of(at);
            if (f[2].equals("cgroup")) {
                for (String option : f[3].split(",")) {
                    if (NEEDED.contains(option) || option.equals("cpuacct")) v1.putIfAbsent(option, at);
                }
            }
        }
        return new CgroupMounts(v2, v2.map(controllersOf).orElse(Set.of()), v1);
    }

    private static Set<String> readControllers(Path mount) {
        try {
            return new HashSet<>(List.of(Files.readString(mount.resolve("cgroup.controllers")).trim().split("\\s+")));
        } catch (IOException e) {
            return Set.of();
        }
    }

    /** Whether the v2 mount offers every controller a sandbox needs. */
    public boolean v2Complete() {
        return v2.isPresent() && v2Controllers.containsAll(NEEDED);
    }

    /** Whether v1 has a hierarchy for each of memory, pids and cpu. */
    public boolean v1Complete() {
        return v1.keySet().containsAll(NEEDED);
    }

    /**
     * The driver for a daemon whose cgroups live under {@code parentName}: v2 where it has the controllers, else
     * v1, else empty (the caller runs without cgroup limits and says so).
     */
    public Optional<CgroupDriver> driver(String parentName) {
        if (v2Complete()) return Optional.of(v2Driver(parentName));
        if (v1Complete()) return Optional.of(v1Driver(parentName));
        return Optional.empty();
    }

    /** The v2 driver on this host's v2 mount, with whatever of the needed controllers it offers. */
    public CgroupV2Driver v2Driver(String parentName) {
        Set<String> offered = new HashSet<>(v2Controllers);
        offered.retainAll(NEEDED);
        return new CgroupV2Driver(v2.orElseThrow(() -> new IllegalStateException("no cgroup2 mount")).resolve(parentName), offered);
    }

    /** The v1 driver on this host's memory, pids and cpu hierarchies. */
    public CgroupV1Driver v1Driver(String parentName) {
        if (!v1Complete()) throw new IllegalStateException("cgroup v1 lacks one of " + NEEDED + ": " + v1.keySet());
        return new CgroupV1Driver(v1.get("memory").resolve(parentName), v1.get("pids").resolve(parentName), v1.get("cpu").resolve(parentName));
    }
}
