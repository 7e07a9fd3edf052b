package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.jail.CgroupMounts;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.process.ProcessTree;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The warm pool of cloud-hypervisor processes ({@code --vmm-pool}): members answer before anyone asks, create,
 * clone and resume take one and it is replaced, what a previous daemon left in the pool is reclaimed at start,
 * and nothing outlives the daemon. With the jail on (the default) every member starts in a jail of its own; most tests
 * here run with {@code --jail off} for the pool's own mechanics, JailedSandboxTest covers jailed claims in depth.
 */
class VmmPoolTest {
    /** What the jail's drivers write as the cgroup's CPU weight: v1's {@code cpu.shares} or v2's {@code cpu.weight}. */
    private static final String LOWEST_CPU_WEIGHT = CgroupMounts.ofHost().v2Complete() ? "1" : "10";
    private static final String DEFAULT_CPU_WEIGHT = CgroupMounts.ofHost().v2Complete() ? "100" : "1024";

    @TempDir Path dir;

    @AfterEach
    void nothingLeft() {
        assertThat(TestTools.leakedChildren()).as("processes left behind").isEmpty();
    }

    @Test
    void withTheJailOnMembersStartJailedAndACreateClaimsOne() throws Exception {
        // a member's jail root a killed daemon left (its processes died with it; recovery has no record of members)
        Path leftoverRoot = Files.createDirectories(dir.resolve("run/.jail/pool_m9"));
        try (DaemonHarness daemon = new DaemonHarness(dir, Map.of(ConfigOption.VMM_POOL, "2"))) {
            assertThat(leftoverRoot).as("a dead daemon's member root").doesNotExist();
            daemon.awaitPoolFull();
            assertThat(daemon.metric("ateom_vmm_pool_size")).isEqualTo(2);
            Set<Long> vmms = poolPids(daemon).stream().filter(pid -> ProcessHandle.of(pid).flatMap(ProcessHandle::parent)
                    .map(parent -> parent.pid() != ProcessHandle.current().pid()).orElse(false)).collect(Collectors.toSet());
            assertThat(vmms).as("each member's VMM, under its jail launcher").hasSize(2);
            Set<String> uids = new HashSet<>();
            for (long vmm : vmms) {
                String status = Files.readString(Path.of("/proc", String.valueOf(vmm), "status"));
                assertThat(status).contains("NoNewPrivs:\t1").contains("CapEff:\t0000000000000000").doesNotContainPattern("(?m)^Uid:\\s+0\\s");
                uids.add(status.lines().filter(l -> l.startsWith("Uid:")).findFirst().orElseThrow().split("\\s+")[1]);
                assertThat(Files.readSymbolicLink(Path.of("/proc", String.valueOf(vmm), "ns", "net")))
                        .as("a network namespace of its own").isNotEqualTo(Files.readSymbolicLink(Path.of("/proc/self/ns/net")));
                assertThat(Files.readString(Path.of("/proc", String.valueOf(vmm), "cgroup"))).as("in a pool member's cgroup").contains("/pool_m");
                assertThat(cpuWeight(vmm)).as("a member's CPU weight, the lowest until its claim").isEqualTo(LOWEST_CPU_WEIGHT);
            }
            assertThat(uids).as("one uid per member").hasSize(2);

            JsonNode runtime = daemon.createOk(daemon.spec("jailed-warm", "jailed-warm")).body().path("sandbox").path("runtime");
            assertThat(daemon.metrics()).contains("ateom_vmm_pool_claims_total{source=\"warm\"} 1.0");
            assertThat(vmms).as("create took an idle member").contains(runtime.path("jail").path("vmmPid").asLong());
            assertThat(uids).as("with its uid").contains(runtime.path("jail").path("uid").asText());
            assertThat(Files.readString(Path.of("/proc", runtime.path("jail").path("vmmPid").asText(), "cgroup")))
                    .as("its cgroup, the sandbox's now").contains("/" + runtime.path("jail").path("cgroup").asText() + "\n");
            Path memoryDir = Path.of(runtime.path("jail").path("cgroupPaths").get(0).asText()); // v1: memory first; v2: the one dir
            String limit = Files.readString(memoryDir.resolve(runtime.path("jail").path("cgroupVersion").asInt() == 1
                    ? "memory.limit_in_bytes" : "memory.max")).trim();
            assertThat(limit).as("the sandbox's memory limit written over the member's").isEqualTo(runtime.path("jail").path("memoryBytes").asText());
            assertThat(runtime.path("jail").path("memoryBytes").asLong()).as("its guest's memory and more").isGreaterThan(512L << 20);
            assertThat(cpuWeight(runtime.path("jail").path("vmmPid").asLong())).as("a sandbox's CPU weight, the kernel's default")
                    .isEqualTo(DEFAULT_CPU_WEIGHT);
            assertThat(daemon.delete("/v1/sandboxes/jailed-warm").status()).isEqualTo(204);
        }
        assertThat(dir.resolve("run/.vmm-pool")).as("the pool dir goes with the daemon").doesNotExist();
        try (var left = Files.walk(dir.resolve("run"))) {
            assertThat(left.filter(p -> p.toString().contains("/.jail")).toList()).as("no member's jail root after the daemon's stop").isEmpty();
        }
    }

    /** The CPU weight of the cgroup {@code pid} is in, on the hierarchy the daemon's jail uses (v2 when complete, as it). */
    private static String cpuWeight(long pid) throws Exception {
        CgroupMounts mounts = CgroupMounts.ofHost();
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "cgroup"))) {
            String[] fields = line.split(":", 3); // hierarchy-ID:controllers:path
            if (mounts.v2Complete() && fields[0].equals("0")) {
                return Files.readString(mounts.v2().orElseThrow().resolve(fields[2].substring(1)).resolve("cpu.weight")).trim();
            }
            if (!mounts.v2Complete() && List.of(fields[1].split(",")).contains("cpu")) {
                return Files.readString(mounts.v1().get("cpu").resolve(fields[2].substring(1)).resolve("cpu.shares")).trim();
            }
        }
        throw new AssertionError("pid " + pid + " is in no cpu cgroup");
    }

    @Test
    void createResumeAndCloneTakeAWarmMemberAndThePoolRefills() throws Exception {
        try (DaemonHarness daemon = new DaemonHarness(dir, Map.of(ConfigOption.VMM_POOL, "2", ConfigOption.JAIL, "off"))) {
            daemon.awaitPoolFull();
            assertThat(daemon.metric("ateom_vmm_pool_size")).isEqualTo(2);
            Set<Long> idle = poolPids(daemon);
            assertThat(idle).hasSize(2);

            JsonNode created = daemon.createOk(daemon.spec("warm", "warm")).body().path("sandbox");
            long chvPid = created.path("runtime").path("chvPid").asLong();
            assertThat(idle).as("create took an idle member").contains(chvPid);
            Path apiSocket = Path.of(created.path("runtime").path("apiSocket").asText());
            assertThat(apiSocket).as("its API socket moved into the sandbox's run dir").startsWith(daemon.runDir().resolve("warm"));
            assertThat(Files.exists(apiSocket)).isTrue();

            String snapshot = daemon.post("/v1/sandboxes/warm/suspend", "{}").body().path("snapshotId").asText();
            daemon.awaitTeardowns(); // the claimed CHV, which still names its pool path, stops after the answer
            daemon.awaitPoolFull();
            Set<Long> refilled = poolPids(daemon);
            assertThat(refilled).as("the pool refilled with a new member").hasSize(2).doesNotContain(chvPid);
            JsonNode resumed = daemon.post("/v1/sandboxes/warm/resume", "{}").body().path("sandbox");
            assertThat(refilled).as("resume took an idle member").contains(resumed.path("runtime").path("chvPid").asLong());

            daemon.awaitPoolFull();
            var clone = daemon.post("/v1/sandboxes", "{\"fromSnapshot\":\"" + snapshot + "\",\"id\":\"warm-clone\","
                    + "\"identity\":{\"name\":\"warm-clone\",\"namespace\":\"tests\"}}");
            assertThat(clone.status()).as(clone.body().toString()).isEqualTo(201);
            assertThat(daemon.metrics()).contains("ateom_vmm_pool_claims_total{source=\"warm\"} 3.0");
            assertThat(daemon.delete("/v1/sandboxes/warm-clone").status()).isEqualTo(204);
            assertThat(daemon.delete("/v1/sandboxes/warm?deleteSnapshots=true").status()).isEqualTo(204);
        }
        assertThat(dir.resolve("run/.vmm-pool")).as("the pool dir goes with the daemon").doesNotExist();
    }

    @Test
    void aStartReclaimsWhatAPreviousDaemonLeftInThePool() throws Exception {
        Path leftoverDir = Files.createDirectories(dir.resolve("run/.vmm-pool/m7"));
        Process leftover = new ProcessBuilder(TestTools.standIn().toString(), "--api-socket", leftoverDir.resolve("api.sock").toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try (DaemonHarness daemon = new DaemonHarness(dir, Map.of(ConfigOption.VMM_POOL, "1", ConfigOption.JAIL, "off"))) {
            assertThat(leftover.waitFor(30, TimeUnit.SECONDS)).as("the leftover member was killed").isTrue();
            assertThat(leftoverDir).doesNotExist();
            daemon.awaitPoolFull();
            assertThat(poolPids(daemon)).hasSize(1).doesNotContain(leftover.pid());
        } finally {
            leftover.destroyForcibly();
        }
    }

    @Test
    void zeroKeepsNoPoolAndOperationsStartTheirOwn() throws Exception {
        try (DaemonHarness daemon = new DaemonHarness(dir, Map.of(ConfigOption.VMM_POOL, "0", ConfigOption.JAIL, "off"))) {
            assertThat(daemon.metric("ateom_vmm_pool_size")).isZero();
            daemon.createOk(daemon.spec("cold", "cold"));
            assertThat(daemon.metrics()).contains("ateom_vmm_pool_claims_total{source=\"cold\"} 1.0");
            assertThat(poolPids(daemon)).isEmpty();
            assertThat(daemon.delete("/v1/sandboxes/cold").status()).isEqualTo(204);
        }
    }

    /**
     * Closing the daemon while a member is still starting (its cloud-hypervisor holds before answering vmm.ping, with
     * a process of its own, as the QEMU-backed stand-in has) returns only once both are dead, the member reaped.
     * Before, close interrupted the start, which sent SIGKILL to the member alone and returned at once: the member was
     * still there for a moment and what it started lived on.
     */
    @Test
    void closeWhileAMemberStartsReturnsOnlyOnceItAndWhatItStartedAreGone() throws Exception {
        Path started = dir.resolve("member-started");
        Path holdingChv = Files.writeString(dir.resolve("cloud-hypervisor"), """
                #!/bin/sh
                # a cloud-hypervisor that never answers vmm.ping: the pool's start of it is still waiting at close
                case "$1" in --version) exec %s --version ;; esac
                sleep 600 &
                echo "$$ $!" > %s.tmp && mv %s.tmp %s
                wait
                """.formatted(TestTools.standIn(), started, started, started));
        Files.setPosixFilePermissions(holdingChv, PosixFilePermissions.fromString("rwx------"));
        long member;
        long itsChild;
        try (DaemonHarness daemon = new DaemonHarness(dir, Map.of(ConfigOption.VMM_POOL, "1", ConfigOption.JAIL, "off",
                ConfigOption.CLOUD_HYPERVISOR, holdingChv.toString()))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(started) && System.nanoTime() < deadline) Thread.sleep(20);
            assertThat(started).as("the pool started a member").exists();
            String[] pids = Files.readString(started).strip().split(" ");
            member = Long.parseLong(pids[0]);
            itsChild = Long.parseLong(pids[1]);
            assertThat(ProcessHandle.of(member)).as("the member is still starting when the daemon closes").isPresent();
        }
        assertThat(Path.of("/proc", Long.toString(member))).as("the member is dead and reaped when close returns").doesNotExist();
        assertThat(ProcessTree.isRunning(itsChild)).as("what the member started is dead when close returns").isFalse();
        assertThat(dir.resolve("run/.vmm-pool")).doesNotExist();
    }

    /** Pids of the idle members: processes whose API socket is (still) under the pool dir. */
    private static Set<Long> poolPids(DaemonHarness daemon) {
        String pool = daemon.runDir().resolve(".vmm-pool") + "/";
        return ProcessHandle.current().descendants().filter(p -> {
            List<String> args = p.info().arguments().map(List::of).orElse(List.of());
            int socket = args.indexOf("--api-socket") + 1;
            return socket > 0 && args.get(socket).startsWith(pool);
        }).map(ProcessHandle::pid).collect(Collectors.toSet());
    }
}
