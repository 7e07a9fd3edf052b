package dev.ateom.jail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The launcher's {@code --inject} mode, as a warm pool member's claim uses it: a jailed program started with empty
 * mount points sees files bound in after its start at their host paths, read-only where asked; Landlock's rules on
 * the mount points cover what is mounted beneath them later (a mount point without a rule stays closed), and nothing
 * of the host beside the injected files is there.
 */
class JailInjectionTest {
    private static final int UID = UidRange.DEFAULT.first() + 4400;

    @TempDir
    Path tmp;

    @Test
    void filesBoundInAfterTheStartAppearAtTheirHostPathsWithTheirModeAndLandlockCoversThem() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        Path images = Files.createDirectories(tmp.resolve("images"));
        Path bare = Files.createDirectories(tmp.resolve("bare"));
        Path member = ownDir(run.resolve(".vmm-pool/m1"));
        Path epoch = ownDir(run.resolve("sb/e1"));
        Path kernel = Files.writeString(images.resolve("vmlinux"), "kernel");
        Path secret = Files.writeString(bare.resolve("secret"), "no rule covers this");
        Path other = Files.writeString(ownDir(run.resolve("other/e1")).resolve("chv.log"), "another VMM's log");

        JailSpec member0 = VmmJails.spec(new VmmJailRequest(UID, OptionalInt.empty(), Files.createDirectories(tmp.resolve("root")),
                List.of(JailFixture.ATTACKER), List.of(), List.of(member), List.of(run), List.of(images), Optional.empty(), Optional.empty(),
                1024, 64L << 20));
        List<Path> mountPoints = new ArrayList<>(member0.mountPoints());
        mountPoints.add(bare); // a mount point Landlock has no rule for
        JailSpec spec = new JailSpec(member0.uid(), member0.gid(), member0.kvmGid(), member0.root(), mountPoints, member0.binds(),
                member0.devices(), member0.netns(), member0.cgroups(), member0.rlimits(), member0.landlockRw(), member0.landlockRo(),
                member0.procfs(), member0.denyTcp());
        Process jailed = JailFixture.start(spec, List.of(JailFixture.ATTACKER.toString(), "await=" + member.resolve("go"),
                "read-kernel=" + kernel, "write-kernel=" + kernel, "write-epoch=" + epoch.resolve("written"), "read-bare=" + secret,
                "read-other=" + other, "write-mount-point=" + run.resolve("evil"), "write-image-root=" + images.resolve("evil")),
                tmp.resolve("out"));
        try {
            JailFixture.awaitOutput(tmp.resolve("out"), "awaiting " + member.resolve("go"));
            JailFixture.Injection injected = inject(jailed.pid(), List.of(BindMount.writable(epoch), BindMount.readOnly(kernel), BindMount.readOnly(secret)));
            assertThat(injected.status()).as(injected.output()).isZero();
            Files.writeString(member.resolve("go"), "");
            assertThat(jailed.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            jailed.destroyForcibly();
        }
        Map<String, String> results = results(tmp.resolve("out"));
        assertThat(results).as(results.toString()).containsEntry("await", "OK")
                .containsEntry("read-kernel", "OK").containsEntry("write-kernel", "EROFS")
                .containsEntry("write-epoch", "OK")
                .containsEntry("read-other", "ENOENT")
                .containsEntry("write-mount-point", "EACCES").containsEntry("write-image-root", "EACCES");
        assertThat(results.get("read-bare")).as("a mount point without a Landlock rule").isEqualTo(landlock(tmp.resolve("out")) ? "EACCES" : "OK");
        assertThat(epoch.resolve("written")).as("written through the injected bind").exists();
        assertThat(Files.readString(kernel)).isEqualTo("kernel");
        assertThat(Files.readString(Path.of("/proc/self/mountinfo"))).as("nothing mounted in the caller's namespace")
                .doesNotContain(run.toString()).doesNotContain(images.toString());
    }

    @Test
    void anInjectionStartedAheadTakesItsBindsOnStdinWhenTheClaimComes() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        Path member = ownDir(run.resolve(".vmm-pool/m1"));
        Path epoch = ownDir(run.resolve("sb/e1"));
        Files.writeString(epoch.resolve("mine"), "the sandbox's");
        JailSpec spec = VmmJails.spec(new VmmJailRequest(UID, OptionalInt.empty(), Files.createDirectories(tmp.resolve("root")),
                List.of(JailFixture.ATTACKER), List.of(), List.of(member), List.of(run), List.of(), Optional.empty(), Optional.empty(),
                1024, 64L << 20));
        Process jailed = JailFixture.start(spec, List.of(JailFixture.ATTACKER.toString(), "await=" + member.resolve("go"),
                "read-mine=" + epoch.resolve("mine")), tmp.resolve("out"));
        try {
            JailFixture.awaitOutput(tmp.resolve("out"), "awaiting " + member.resolve("go"));
            Process ahead = new ProcessBuilder(JailCommand.injectLater(JailFixture.LAUNCHER, jailed.pid())).redirectErrorStream(true).start();
            Thread.sleep(200); // it waits for its stdin: nothing is bound yet
            assertThat(ahead.isAlive()).as("waiting for its arguments").isTrue();
            try (var stdin = ahead.getOutputStream()) {
                stdin.write(JailCommand.injectInput(List.of(BindMount.writable(epoch))));
            }
            String output = new String(ahead.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(ahead.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(ahead.exitValue()).as(output).isZero();
            Files.writeString(member.resolve("go"), "");
            assertThat(jailed.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            jailed.destroyForcibly();
        }
        assertThat(results(tmp.resolve("out"))).containsEntry("read-mine", "OK");
    }

    @Test
    void aFailedInjectionNamesTheStepAndExits125() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        Path member = ownDir(run.resolve(".vmm-pool/m1"));
        JailSpec spec = VmmJails.spec(new VmmJailRequest(UID, OptionalInt.empty(), Files.createDirectories(tmp.resolve("root")),
                List.of(JailFixture.ATTACKER), List.of(), List.of(member), List.of(run), List.of(), Optional.empty(), Optional.empty(),
                1024, 64L << 20));
        Process jailed = JailFixture.start(spec, List.of(JailFixture.ATTACKER.toString(), "await=" + member.resolve("go")), tmp.resolve("out"));
        try {
            JailFixture.awaitOutput(tmp.resolve("out"), "awaiting " + member.resolve("go"));
            JailFixture.Injection missing = inject(jailed.pid(), List.of(BindMount.readOnly(tmp.resolve("missing"))));
            assertThat(missing.status()).isEqualTo(JailLauncher.SETUP_FAILED);
            assertThat(missing.output()).startsWith("ateom-jail: inject source " + tmp.resolve("missing")).contains("(errno 2)");
            // the root stays read-only: a target outside every mount point cannot be made
            Path outside = Files.createDirectories(tmp.resolve("outside"));
            JailFixture.Injection refused = inject(jailed.pid(), List.of(BindMount.readOnly(outside)));
            assertThat(refused.status()).isEqualTo(JailLauncher.SETUP_FAILED);
            assertThat(refused.output()).startsWith("ateom-jail: mkdir").contains("Read-only file system");
        } finally {
            jailed.destroyForcibly();
            jailed.waitFor();
        }
        JailFixture.Injection gone = inject(jailed.pid(), List.of(BindMount.readOnly(tmp)));
        assertThat(gone.status()).isEqualTo(JailLauncher.SETUP_FAILED);
        assertThat(gone.output()).startsWith("ateom-jail: open mount namespace /proc/" + jailed.pid() + "/ns/mnt");
        // a process in the caller's own mount namespace (a launcher not yet in its jail): the host's mounts stay as they are
        JailFixture.Injection host = inject(ProcessHandle.current().pid(), List.of(BindMount.readOnly(tmp)));
        assertThat(host.status()).isEqualTo(JailLauncher.SETUP_FAILED);
        assertThat(host.output()).startsWith("ateom-jail: not a jail's mount namespace: /proc/" + ProcessHandle.current().pid() + "/ns/mnt");
    }

    private static JailFixture.Injection inject(long pid, List<BindMount> binds) throws IOException, InterruptedException {
        return JailFixture.inject(pid, binds);
    }

    /** A dir owned by the jail's uid, closed to others, as the daemon makes a VMM's run dir. */
    private static Path ownDir(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.setAttribute(dir, "unix:uid", UID);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        return dir;
    }

    private static Map<String, String> results(Path output) throws IOException {
        Map<String, String> results = new HashMap<>();
        for (String line : Files.readAllLines(output, StandardCharsets.UTF_8)) {
            String[] parts = line.split(" ", 2);
            if (parts.length == 2) results.put(parts[0], parts[1]);
        }
        return results;
    }

    /** Whether the jail had Landlock: the launcher notes on its output when the kernel has none. */
    private static boolean landlock(Path output) throws IOException {
        return !Files.readString(output).contains("Landlock unavailable");
    }
}
