package dev.ateom.jail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every attempt of {@link BrokenOutVmmTest}, the attacker started as a warm pool member is: before its sandbox is
 * known, with empty mount points at the run dir, the sandboxes dir and the image root, in a cgroup of its own; then
 * claimed: its sandbox's run dir, outbox and kernel bound in ({@code ateom-jail --inject}) and the sandbox's limits
 * written over its cgroup. It sees what was bound in for its sandbox and nothing else.
 */
class BrokenOutPoolMemberTest extends BrokenOutVmmTest {
    @Override
    List<String> attack(List<String> attempts) throws Exception {
        Path member = Files.createDirectories(tmp.resolve("run/.vmm-pool/m1"));
        Path outbox = Files.createDirectories(state.resolve("sandboxes/own/vmm-out"));
        for (Path dir : List.of(member, outbox)) {
            Files.setAttribute(dir, "unix:uid", UID);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        }
        // the member's own cgroup, with its own limits until the claim writes the sandbox's over them
        SandboxCgroup pool = cgroups.create("pool_m1", new CgroupLimits(4 * MEMORY_LIMIT, 4 * PIDS_LIMIT, 1.0));
        try {
            JailSpec spec = VmmJails.spec(new VmmJailRequest(UID, OptionalInt.empty(), Files.createDirectories(tmp.resolve("root")),
                    List.of(JailFixture.ATTACKER), List.of(), List.of(member), List.of(tmp.resolve("run"), state.resolve("sandboxes")),
                    List.of(kernelDir), Optional.empty(), Optional.of(pool), 1024, 64L << 20));
            List<String> program = new ArrayList<>(List.of(JailFixture.ATTACKER.toString(), "await=" + member.resolve("claimed")));
            program.addAll(attempts);
            Path output = tmp.resolve("attacker.out");
            Process jailed = JailFixture.start(spec, program, output);
            try {
                // the daemon claims a member once it answers, its jail up long since
                JailFixture.awaitOutput(output, "awaiting " + member.resolve("claimed"));
                // the claim, as PoolMemberJails makes it
                JailFixture.Injection claim = JailFixture.inject(jailed.pid(), List.of(BindMount.writable(runDir), BindMount.writable(outbox),
                        BindMount.readOnly(kernelDir.resolve("vmlinux"))));
                assertThat(claim.status()).as(claim.output()).isZero();
                pool = cgroups.limit(pool, new CgroupLimits(MEMORY_LIMIT, PIDS_LIMIT, 1.0));
                assertThat(cgroups.pids(pool)).as("the member's cgroup, the sandbox's now").contains(jailed.pid());
                Files.writeString(member.resolve("claimed"), "");
                if (!jailed.waitFor(60, TimeUnit.SECONDS)) throw new AssertionError("the attacker still runs after 60 s: " + Files.readString(output));
            } finally {
                jailed.destroyForcibly();
                jailed.waitFor();
            }
            List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
            assertThat(lines).as("it waited for its claim").contains("await OK");
            return lines;
        } finally {
            cgroups.remove(pool);
        }
    }

    /** The kernel's dir is the image root's mount point, root's: the member may not create anything there. */
    @Override
    String kernelDirWriteError() {
        return "EACCES";
    }
}
