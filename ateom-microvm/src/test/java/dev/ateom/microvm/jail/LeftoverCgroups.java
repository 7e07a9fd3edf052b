package dev.ateom.microvm.jail;

import dev.ateom.jail.CgroupMounts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The cgroups a jailed daemon made for one state dir ({@code ateom-<hash>} in each hierarchy, with its sandboxes' and
 * pool members' cgroups below): a clean stop removes them, a killed daemon leaves them to the next start on that
 * state dir, which a test's temp dir never gets, so the test removes them itself.
 */
public final class LeftoverCgroups {
    private LeftoverCgroups() {}

    /** The cgroup dirs of {@code stateDir} that exist now, parents first. */
    public static List<Path> of(Path stateDir) {
        String parent = VmmJailer.cgroupParent(stateDir);
        CgroupMounts mounts = CgroupMounts.ofHost();
        List<Path> roots = new ArrayList<>(mounts.v1().values());
        mounts.v2().ifPresent(roots::add);
        List<Path> found = new ArrayList<>();
        for (Path root : roots.stream().distinct().toList()) {
            Path dir = root.resolve(parent);
            if (!Files.isDirectory(dir)) continue;
            try (Stream<Path> dirs = Files.walk(dir)) {
                dirs.filter(Files::isDirectory).forEach(found::add);
            } catch (IOException e) {
                found.add(dir); // removed meanwhile or unreadable: still named in the failure
            }
        }
        return found;
    }

    /** Removes them, children first (their processes must be gone: a cgroup with a member cannot be removed). */
    public static void remove(Path stateDir) {
        for (Path dir : of(stateDir).stream().sorted(Comparator.reverseOrder()).toList()) {
            try {
                Files.deleteIfExists(dir);
            } catch (IOException e) {
                System.err.println("cannot remove the leftover cgroup " + dir + ": " + e);
            }
        }
    }
}
