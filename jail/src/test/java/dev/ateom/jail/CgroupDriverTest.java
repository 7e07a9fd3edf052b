package dev.ateom.jail;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Both cgroup versions on this host's real cgroup file systems: v1's memory, pids and cpu hierarchies, and the
 * v2 mount with whichever controllers it offers (on this CI host the {@code unified} mount offers none of the
 * three, so there v2 is tested for membership and removal).
 */
class CgroupDriverTest {
    private final CgroupMounts mounts = CgroupMounts.ofHost();
    private final String parent = "ateom-test-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<CgroupDriver> drivers = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void cleanUp() throws IOException {
        processes.forEach(Process::destroyForcibly);
        for (CgroupDriver driver : drivers) {
            for (String child : driver.children()) driver.remove(driver.existing(child, new CgroupLimits(1, 1, 0)));
            for (Path p : driver.parents()) Files.deleteIfExists(p);
        }
    }

    @Test
    void hostMountsAreRead() {
        assertThat(mounts.v1Complete() || mounts.v2Complete()).as("cgroup v1 or v2 with memory, pids, cpu: " + mounts).isTrue();
    }

    @Test
    void v1LimitsMembershipAndRemoval() throws Exception {
        assumeTrue(mounts.v1Complete(), "no cgroup v1 hierarchies on this host");
        CgroupV1Driver driver = track(mounts.v1Driver(parent));
        SandboxCgroup cgroup = driver.create("sb1", new CgroupLimits(96L << 20, 50, 1.5, 1));
        Path memory = mounts.v1().get("memory").resolve(parent).resolve("sb1");
        Path shares = mounts.v1().get("cpu").resolve(parent).resolve("sb1/cpu.shares");
        assertThat(Files.readString(shares).trim()).as("v2's weight 1 as v1's shares").isEqualTo("10");
        assertThat(Files.readString(memory.resolve("memory.limit_in_bytes")).trim()).isEqualTo(String.valueOf(96L << 20));
        assertThat(Files.readString(mounts.v1().get("pids").resolve(parent).resolve("sb1/pids.max")).trim()).isEqualTo("50");
        assertThat(Files.readString(mounts.v1().get("cpu").resolve(parent).resolve("sb1/cpu.cfs_quota_us")).trim()).isEqualTo("150000");
        // a warm pool member's cgroup takes its sandbox's limits at the claim
        cgroup = driver.limit(cgroup, new CgroupLimits(128L << 20, 60, 2.0));
        assertThat(cgroup.limits().pidsMax()).isEqualTo(60);
        assertThat(Files.readString(memory.resolve("memory.limit_in_bytes")).trim()).isEqualTo(String.valueOf(128L << 20));
        assertThat(Files.readString(mounts.v1().get("pids").resolve(parent).resolve("sb1/pids.max")).trim()).isEqualTo("60");
        assertThat(Files.readString(mounts.v1().get("cpu").resolve(parent).resolve("sb1/cpu.cfs_quota_us")).trim()).isEqualTo("200000");
        assertThat(Files.readString(shares).trim()).as("the default weight back").isEqualTo("1024");
        assertMembershipAndRemoval(driver, cgroup);
    }

    @Test
    void v2MembershipAndRemoval() throws Exception {
        assumeTrue(mounts.v2().isPresent(), "no cgroup2 mount on this host");
        CgroupV2Driver driver = track(mounts.v2Driver(parent));
        SandboxCgroup cgroup = driver.create("sb1", new CgroupLimits(96L << 20, 50, 1.5, 1));
        Path weight = cgroup.dirs().getFirst().resolve("cpu.weight");
        if (driver.controllers().contains("cpu")) {
            assertThat(Files.readString(weight).trim()).isEqualTo("1");
        }
        if (driver.controllers().contains("pids")) {
            assertThat(Files.readString(cgroup.dirs().getFirst().resolve("pids.max")).trim()).isEqualTo("50");
        }
        if (driver.controllers().contains("memory")) {
            assertThat(Files.readString(cgroup.dirs().getFirst().resolve("memory.max")).trim()).isEqualTo(String.valueOf(96L << 20));
        }
        cgroup = driver.limit(cgroup, new CgroupLimits(128L << 20, 60, 2.0));
        if (driver.controllers().contains("pids")) {
            assertThat(Files.readString(cgroup.dirs().getFirst().resolve("pids.max")).trim()).isEqualTo("60");
        }
        if (driver.controllers().contains("memory")) {
            assertThat(Files.readString(cgroup.dirs().getFirst().resolve("memory.max")).trim()).isEqualTo(String.valueOf(128L << 20));
        }
        if (driver.controllers().contains("cpu")) {
            assertThat(Files.readString(weight).trim()).isEqualTo("100");
        }
        assertMembershipAndRemoval(driver, cgroup);
    }

    private void assertMembershipAndRemoval(CgroupDriver driver, SandboxCgroup cgroup) throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        processes.add(sleeper);
        driver.move(cgroup, sleeper.pid());
        assertThat(driver.pids(cgroup)).containsExactly(sleeper.pid());
        assertThat(driver.children()).containsExactly("sb1");
        // removal kills what still runs in it: a cgroup with members cannot go; an interrupt of the caller (a pool's
        // close stopping its refiller) does not cut it short, and is still set after it
        Thread.currentThread().interrupt();
        try {
            assertThat(driver.remove(cgroup)).isTrue();
        } finally {
            assertThat(Thread.interrupted()).as("the caller's interrupt, kept").isTrue();
        }
        assertThat(sleeper.waitFor(10, TimeUnit.SECONDS)).isTrue();
        cgroup.dirs().forEach(dir -> assertThat(dir).doesNotExist());
        assertThat(driver.children()).isEmpty();
    }

    private <T extends CgroupDriver> T track(T driver) {
        drivers.add(driver);
        return driver;
    }
}
