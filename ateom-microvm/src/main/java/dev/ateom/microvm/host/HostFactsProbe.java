package dev.ateom.microvm.host;

import dev.ateom.network.firewall.DockerForwardChain;
import dev.ateom.network.nft.Nftables;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Reads the host's facts: files under {@code /sys} and {@code /proc} (relative to a root, so tests can hand it a tree
 * of their own), the Landlock syscall, libnftables and Docker's tables. Only reads; never fails: a fact that cannot be
 * read is reported as absent or {@code unknown}.
 */
public final class HostFactsProbe {
    private static final List<String> KVM_VENDOR_MODULES = List.of("kvm_intel", "kvm_amd", KvmFacts.PVM);
    private static final Set<String> V1_CONTROLLERS = Set.of("cpu", "cpuacct", "cpuset", "memory", "devices", "freezer", "net_cls",
            "blkio", "perf_event", "net_prio", "hugetlb", "pids", "rdma", "misc");

    private final Path root;
    private final IntSupplier landlockAbi;
    private final BooleanSupplier nftables;
    private final Supplier<HostFacts.DockerForward> dockerForward;

    public HostFactsProbe(Path root, IntSupplier landlockAbi, BooleanSupplier nftables, Supplier<HostFacts.DockerForward> dockerForward) {
        this.root = root;
        this.landlockAbi = landlockAbi;
        this.nftables = nftables;
        this.dockerForward = dockerForward;
    }

    /** This host, as the daemon sees it. */
    public static HostFactsProbe ofThisHost() {
        return new HostFactsProbe(Path.of("/"), Landlock::abi, HostFactsProbe::nftablesLoads, HostFactsProbe::dockerForwardHere);
    }

    public HostFacts probe() {
        return new HostFacts(kvm(), cgroup(), landlockAbi.getAsInt(), nftables.getAsBoolean(), dockerForward.get());
    }

    KvmFacts kvm() {
        boolean device = Files.exists(root.resolve("dev/kvm"));
        String module = KVM_VENDOR_MODULES.stream().filter(name -> Files.isDirectory(root.resolve("sys/module").resolve(name)))
                .findFirst().orElse("none");
        return new KvmFacts(device, module);
    }

    /** From {@code /proc/self/mountinfo}: cgroup (v1) and cgroup2 mounts, the controllers each offers, their options. */
    CgroupFacts cgroup() {
        List<String> lines;
        try {
            lines = Files.readAllLines(root.resolve("proc/self/mountinfo"));
        } catch (IOException e) {
            return new CgroupFacts("unknown", List.of(), false);
        }
        Set<String> v1 = new TreeSet<>();
        Path unified = null;
        boolean favorDynmods = false;
        for (String line : lines) {
            int separator = line.indexOf(" - ");
            if (separator < 0) continue;
            String[] before = line.substring(0, separator).split(" ");
            String[] after = line.substring(separator + 3).split(" ");
            if (before.length < 5 || after.length < 3) continue;
            if (after[0].startsWith("cgroup") && Arrays.asList(after[2].split(",")).contains("favordynmods")) favorDynmods = true;
            if (after[0].equals("cgroup2")) {
                unified = unified == null ? Path.of(before[4]) : unified;
            } else if (after[0].equals("cgroup")) {
                Arrays.stream(after[2].split(",")).filter(V1_CONTROLLERS::contains).forEach(v1::add);
            }
        }
        if (!v1.isEmpty()) return new CgroupFacts(unified == null ? "v1" : "hybrid", new ArrayList<>(v1), favorDynmods);
        if (unified == null) return new CgroupFacts("none", List.of(), false);
        return new CgroupFacts("v2", unifiedControllers(unified), favorDynmods);
    }

    private List<String> unifiedControllers(Path mountPoint) {
        try {
            String text = Files.readString(root.resolve(mountPoint.toString().replaceFirst("^/", "")).resolve("cgroup.controllers"));
            return text.isBlank() ? List.of() : List.of(text.strip().split("\\s+"));
        } catch (IOException e) {
            return List.of();
        }
    }

    private static boolean nftablesLoads() {
        try {
            Nftables.requireAvailable();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static HostFacts.DockerForward dockerForwardHere() {
        try {
            Optional<DockerForwardChain> chain = DockerForwardChain.find();
            return chain.map(c -> new HostFacts.DockerForward(c.backend().label(), c.policy())).orElse(null);
        } catch (IOException | RuntimeException e) {
            return new HostFacts.DockerForward("unknown", "unknown (" + e.getMessage() + ")");
        }
    }
}
