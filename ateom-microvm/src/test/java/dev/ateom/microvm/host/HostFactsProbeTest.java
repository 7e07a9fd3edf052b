package dev.ateom.microvm.host;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The host's facts read from a root of the test's own (sysfs, /dev, mountinfo as the kernel shows them). */
class HostFactsProbeTest {
    @TempDir
    Path root;

    private HostFactsProbe probe() {
        return new HostFactsProbe(root, () -> 4, () -> true, () -> new HostFacts.DockerForward("iptables-nft", "drop"));
    }

    @Test
    void aDevKvmServedByKvmPvmIsFoundAndWarnedAboutNamingTheVersionAndTheCause() throws IOException {
        Files.createDirectories(root.resolve("sys/module/kvm/parameters"));
        Files.createDirectories(root.resolve("sys/module/kvm_pvm/parameters"));
        Files.createDirectories(root.resolve("dev"));
        Files.createFile(root.resolve("dev/kvm"));
        HostFacts facts = probe().probe();
        assertThat(facts.kvm()).isEqualTo(new KvmFacts(true, "kvm_pvm"));
        assertThat(facts.landlockAbi()).isEqualTo(4);
        assertThat(facts.dockerForward()).isEqualTo(new HostFacts.DockerForward("iptables-nft", "drop"));
        assertThat(HostLimits.warnings(facts, Optional.of(new ChvVersion(53, 0, 0)))).singleElement().asString()
                .contains("kvm_pvm").contains("cloud-hypervisor v53.0.0").contains("suspend, checkpoint and fork will fail")
                .contains("KVM_GET_NESTED_STATE").contains("EINVAL").doesNotContain("\n");
    }

    @Test
    void kvmPvmWithoutDevKvmOrIntelKvmWarnsOfNothing() throws IOException {
        Files.createDirectories(root.resolve("sys/module/kvm_pvm"));
        HostFacts noDevice = probe().probe();
        assertThat(noDevice.kvm()).isEqualTo(new KvmFacts(false, "kvm_pvm"));
        assertThat(HostLimits.warnings(noDevice, Optional.empty())).isEmpty();

        Files.delete(root.resolve("sys/module/kvm_pvm"));
        Files.createDirectories(root.resolve("sys/module/kvm_intel"));
        Files.createDirectories(root.resolve("dev"));
        Files.createFile(root.resolve("dev/kvm"));
        HostFacts intel = probe().probe();
        assertThat(intel.kvm()).isEqualTo(new KvmFacts(true, "kvm_intel"));
        assertThat(HostLimits.warnings(intel, Optional.of(new ChvVersion(54, 0, 0)))).isEmpty();
        Files.delete(root.resolve("sys/module/kvm_intel"));
        assertThat(probe().probe().kvm().module()).isEqualTo("none");
    }

    @Test
    void cgroupV1HybridAndV2AreToldApart() throws IOException {
        String v1 = "30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
                + "31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
                + "34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
                + "39 30 0:36 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n";
        mountinfo(v1);
        assertThat(probe().probe().cgroup()).isEqualTo(new CgroupFacts("v1", List.of("cpu", "cpuacct", "memory"), false));

        mountinfo(v1 + "40 30 0:37 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n");
        assertThat(probe().probe().cgroup().version()).isEqualTo("hybrid");
        assertThat(probe().probe().cgroup().favorDynmods()).isFalse();
        // one mount with the option switches it for the whole host (the kernel's lock is one): the unified one here
        mountinfo(v1 + "40 30 0:37 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw,nsdelegate,favordynmods\n");
        assertThat(probe().probe().cgroup().favorDynmods()).isTrue();
        // an option of the mount point (before the separator) is not the cgroup's
        mountinfo(v1.replace("rw,relatime - cgroup cgroup rw,memory", "rw,favordynmods - cgroup cgroup rw,memory"));
        assertThat(probe().probe().cgroup().favorDynmods()).isFalse();

        mountinfo("29 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n");
        Files.createDirectories(root.resolve("sys/fs/cgroup"));
        Files.writeString(root.resolve("sys/fs/cgroup/cgroup.controllers"), "cpuset cpu io memory pids\n");
        assertThat(probe().probe().cgroup()).isEqualTo(new CgroupFacts("v2", List.of("cpuset", "cpu", "io", "memory", "pids"), false));

        mountinfo("22 1 0:21 / /sys rw - sysfs sysfs rw\n");
        assertThat(probe().probe().cgroup().version()).isEqualTo("none");
    }

    @Test
    void aFailureBehindWhichTheHostsKvmStandsIsNamed() {
        var chain = new RuntimeException("suspend failed", new IllegalStateException("cloud-hypervisor: Error from API: The VM could not be "
                + "snapshotted: Cannot snapshot VM: Failed to snapshot migratable component: Could not get vCPU state "
                + "GetNestedState(Invalid argument (os error 22)"));
        assertThat(HostLimits.causeOf(chain)).get().asString().contains("KVM_GET_NESTED_STATE").contains("kvm_pvm");
        assertThat(HostLimits.causeOf(new RuntimeException("vm.pause: VM is not running"))).isEmpty();
    }

    private void mountinfo(String text) throws IOException {
        Files.createDirectories(root.resolve("proc/self"));
        Files.writeString(root.resolve("proc/self/mountinfo"), text);
    }
}
