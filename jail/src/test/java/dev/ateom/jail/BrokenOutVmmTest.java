package dev.ateom.jail;

import dev.ateom.fixtures.wait.Eventually;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A guest that took over its VMM: the attacker program (src/test/c/broken-out-vmm.c) is started by the launcher
 * in a VMM's jail from {@link VmmJails}, exactly as the daemon starts cloud-hypervisor, beside a sandbox state dir
 * with another sandbox's files, an API token and a second jailed VMM. Each attempt out is one assertion on the
 * errno it met. {@link #attack} starts it as the daemon starts a VMM for its sandbox; BrokenOutPoolMemberTest as a warm
 * pool member that got its sandbox's files at the claim.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BrokenOutVmmTest {
    static final int UID = UidRange.DEFAULT.first() + 4242;
    static final long MEMORY_LIMIT = 48L << 20;
    static final long PIDS_LIMIT = 24;

    Path tmp;
    Path state;
    Path runDir;
    Path otherRunDir;
    Path kernelDir;
    CgroupDriver cgroups;
    SandboxCgroup cgroup;
    SandboxCgroup otherCgroup;
    Process otherVmm;
    ServerSocket hostListener;
    final Map<String, String> results = new HashMap<>();

    @BeforeAll
    void breakOut(@TempDir Path temp) throws Exception {
        tmp = temp;
        state = tmp.resolve("state");
        Files.createDirectories(state.resolve("sandboxes/other/durable"));
        Files.writeString(state.resolve("sandboxes/other/durable/secret"), "other sandbox's data");
        Files.createDirectories(state.resolve("sandboxes/own/durable"));
        Files.writeString(state.resolve("sandboxes/own/sandbox.json"), "{}");
        Files.writeString(state.resolve("api-token"), "token");
        kernelDir = Files.createDirectories(tmp.resolve("kernel"));
        Files.writeString(kernelDir.resolve("vmlinux"), "kernel");
        runDir = Files.createDirectories(tmp.resolve("run/own/e1"));
        otherRunDir = Files.createDirectories(tmp.resolve("run/other/e1"));
        Files.writeString(otherRunDir.resolve("chv.log"), "other VMM's log");
        // as the daemon does: each run dir owned by its VMM's uid, closed to everyone else
        Files.setAttribute(runDir, "unix:uid", UID);
        Files.setAttribute(otherRunDir, "unix:uid", UID + 1);
        for (Path dir : List.of(runDir, otherRunDir)) Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));

        cgroups = CgroupMounts.ofHost().driver("ateom-test-" + UUID.randomUUID().toString().substring(0, 8)).orElseThrow(
                () -> new AssertionError("this host has neither cgroup v2 with memory, pids, cpu nor the v1 hierarchies"));
        cgroup = cgroups.create("own", new CgroupLimits(MEMORY_LIMIT, PIDS_LIMIT, 1.0));
        otherCgroup = cgroups.create("other", new CgroupLimits(MEMORY_LIMIT, PIDS_LIMIT, 1.0));

        otherVmm = JailFixture.start(VmmJails.spec(JailFixture.request(UID + 1, Files.createDirectories(tmp.resolve("root-other")), otherRunDir,
                List.of(), Optional.of(otherCgroup))), List.of(JailFixture.ATTACKER.toString(), "sleep=120"), tmp.resolve("other.out"));
        Eventually.until(Duration.ofSeconds(20), () -> Files.readString(tmp.resolve("other.out")).contains("sleeping"), "the other VMM runs");
        long otherVmmPid = otherVmm.children().findFirst().orElseThrow().pid();

        hostListener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        long daemon = ProcessHandle.current().pid();
        List<String> lines = attack(List.of("read-own-run-dir=" + write(runDir.resolve("own-file")),
                "write-own-run-dir=" + runDir.resolve("written"),
                "read-kernel=" + kernelDir.resolve("vmlinux"),
                "read-other-durable=" + state.resolve("sandboxes/other/durable/secret"),
                "read-other-run-dir=" + otherRunDir.resolve("chv.log"),
                "read-own-state=" + state.resolve("sandboxes/own/sandbox.json"),
                "read-api-token=" + state.resolve("api-token"),
                "read-shadow=/etc/shadow",
                "write-root=/escape",
                "write-kernel-dir=" + kernelDir.resolve("evil"),
                "list-processes",
                "signal-daemon=" + daemon,
                "signal-other-vmm=" + otherVmmPid,
                "ptrace-daemon=" + daemon,
                "ptrace-other-vmm=" + otherVmmPid,
                "connect-host=" + hostListener.getLocalPort(),
                "mknod=" + runDir.resolve("null"),
                "raise-limit",
                "setuid-root",
                "user-namespace",
                "mount=" + runDir,
                "write-cgroup-procs=" + cgroupProcsOfHostRoot(),
                "exhaust-memory=" + (4 * (MEMORY_LIMIT >> 20)),
                "exhaust-pids=" + (4 * PIDS_LIMIT)));
        for (String line : lines) {
            String[] parts = line.split(" ", 2);
            if (parts.length == 2) results.put(parts[0], parts[1]);
        }
        System.out.println("broken-out VMM: " + lines);
    }

    /** Runs the attacker with {@code attempts} in a VMM's jail made for its sandbox: its output lines. */
    List<String> attack(List<String> attempts) throws Exception {
        JailSpec spec = VmmJails.spec(JailFixture.request(UID, Files.createDirectories(tmp.resolve("root")), runDir, List.of(kernelDir),
                Optional.of(cgroup)));
        List<String> program = new ArrayList<>(List.of(JailFixture.ATTACKER.toString()));
        program.addAll(attempts);
        return JailFixture.run(spec, program, tmp.resolve("attacker.out"));
    }

    /** What writing a new file into the kernel's dir meets: the read-only bind of the dir. */
    String kernelDirWriteError() {
        return "EROFS";
    }

    private static Path write(Path file) throws IOException {
        Files.writeString(file, "mine");
        Files.setAttribute(file, "unix:uid", UID);
        return file;
    }

    private Path cgroupProcsOfHostRoot() {
        return cgroups.parents().getFirst().getParent().resolve("cgroup.procs");
    }

    @AfterAll
    void cleanUp() throws IOException {
        if (otherVmm != null) {
            otherVmm.destroyForcibly();
            otherVmm.onExit().join();
        }
        if (hostListener != null) hostListener.close();
        if (cgroups != null) {
            for (SandboxCgroup c : new SandboxCgroup[] {cgroup, otherCgroup}) if (c != null) cgroups.remove(c);
            for (Path parent : cgroups.parents()) Files.deleteIfExists(parent);
        }
    }

    @Test
    void theJailedProgramRanAndWorksInItsOwnRunDir() {
        assertThat(results).containsEntry("read-own-run-dir", "OK").containsEntry("write-own-run-dir", "OK").containsEntry("read-kernel", "OK");
        assertThat(runDir.resolve("written")).exists();
    }

    @Test
    void anotherSandboxsDurableFilesAreNotThere() {
        assertThat(results.get("read-other-durable")).isEqualTo("ENOENT");
    }

    @Test
    void anotherVmmsRunDirIsNotThere() {
        assertThat(results.get("read-other-run-dir")).isEqualTo("ENOENT");
    }

    @Test
    void itsOwnSandboxsStateDirIsNotThere() {
        assertThat(results.get("read-own-state")).isEqualTo("ENOENT");
    }

    @Test
    void theApiTokenIsNotThere() {
        assertThat(results.get("read-api-token")).isEqualTo("ENOENT");
    }

    @Test
    void etcShadowIsNotThere() {
        assertThat(results.get("read-shadow")).isEqualTo("ENOENT");
    }

    @Test
    void theRootIsReadOnly() {
        assertThat(results.get("write-root")).isEqualTo("EROFS");
    }

    @Test
    void theKernelDirIsReadOnly() {
        assertThat(results.get("write-kernel-dir")).isEqualTo(kernelDirWriteError());
        assertThat(kernelDir.resolve("evil")).doesNotExist();
    }

    @Test
    void noHostProcessIsVisible() {
        assertThat(results.get("list-processes")).isEqualTo("visible:0");
    }

    @Test
    void theDaemonCannotBeSignalled() {
        assertThat(results.get("signal-daemon")).isEqualTo("ESRCH");
    }

    @Test
    void anotherVmmCannotBeSignalled() {
        assertThat(results.get("signal-other-vmm")).isEqualTo("ESRCH");
    }

    @Test
    void theDaemonCannotBePtraced() {
        assertThat(results.get("ptrace-daemon")).isEqualTo("ESRCH");
    }

    @Test
    void anotherVmmCannotBePtraced() {
        assertThat(results.get("ptrace-other-vmm")).isEqualTo("ESRCH");
    }

    @Test
    void theHostNetworkIsUnreachable() {
        // Landlock (ABI 4+) refuses the connect before routing; without it the empty namespace's loopback is down
        assertThat(results.get("connect-host")).isIn("EACCES", "ENETUNREACH");
    }

    @Test
    void noDeviceNodeCanBeMade() {
        assertThat(results.get("mknod")).isEqualTo("EPERM");
    }

    @Test
    void noLimitCanBeRaised() {
        assertThat(results.get("raise-limit")).isEqualTo("EPERM");
    }

    @Test
    void rootCannotBeRegained() {
        assertThat(results.get("setuid-root")).isEqualTo("EPERM");
    }

    @Test
    void noUserNamespaceCanBeMade() {
        assertThat(results.get("user-namespace")).isEqualTo("EPERM");
    }

    @Test
    void nothingCanBeMounted() {
        assertThat(results.get("mount")).isEqualTo("EPERM");
    }

    @Test
    void theCgroupCannotBeLeft() {
        // the cgroup file system is not in the jail at all
        assertThat(results.get("write-cgroup-procs")).isEqualTo("ENOENT");
    }

    @Test
    void exceedingTheMemoryLimitIsKilled() {
        assertThat(results.get("exhaust-memory")).isEqualTo("KILLED:9");
    }

    @Test
    void exceedingThePidsLimitIsRefused() {
        assertThat(results.get("exhaust-pids")).isEqualTo("EAGAIN");
    }

    @Test
    void theOtherVmmLivesInItsCgroupAndIsJailed() throws IOException {
        long pid = otherVmm.children().findFirst().orElseThrow().pid();
        assertThat(cgroups.pids(otherCgroup)).contains(pid);
        String status = Files.readString(Path.of("/proc", String.valueOf(pid), "status"));
        assertThat(status).containsPattern("Uid:\\s+" + (UID + 1) + "\\s").contains("NoNewPrivs:\t1").contains("CapEff:\t0000000000000000")
                .contains("CapBnd:\t0000000000000000");
        for (String ns : List.of("mnt", "net", "pid", "ipc", "uts")) {
            assertThat(Files.readSymbolicLink(Path.of("/proc", String.valueOf(pid), "ns", ns)))
                    .as(ns).isNotEqualTo(Files.readSymbolicLink(Path.of("/proc/self/ns", ns)));
        }
    }
}
