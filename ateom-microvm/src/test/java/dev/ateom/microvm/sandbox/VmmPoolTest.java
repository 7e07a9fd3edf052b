package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.process.ProcessTree;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The warm pool of cloud-hypervisor processes ({@code --vmm-pool}): members answer before anyone asks, create,
 * clone and resume take one and it is replaced, what a previous daemon left in the pool is reclaimed at start,
 * and nothing outlives the daemon. The pool holds unjailed processes, so it runs with {@code --jail off} only: with
 * the jail on it keeps none and every VMM starts in its own jail.
 */
class VmmPoolTest {
    @TempDir Path dir;

    @AfterEach
    void nothingLeft() {
        assertThat(TestTools.leakedChildren()).as("processes left behind").isEmpty();
    }

    @Test
    void theJailTurnsThePoolOff() throws Exception {
        try (DaemonHarness daemon = new DaemonHarness(dir, Map.of(ConfigOption.VMM_POOL, "2"))) {
            assertThat(daemon.metric("ateom_vmm_pool_size")).isEqualTo(0);
            JsonNode runtime = daemon.createOk(daemon.spec("jailed-cold", "jailed-cold")).body().path("sandbox").path("runtime");
            assertThat(runtime.path("jail").path("uid").asInt()).as("started cold, in its own jail").isPositive();
            assertThat(daemon.delete("/v1/sandboxes/jailed-cold").status()).isEqualTo(204);
        }
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
