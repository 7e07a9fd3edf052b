package dev.ateom.microvm.jail;

import dev.ateom.jail.SandboxCgroup;
import dev.ateom.virtiofsd.ShareConfinement;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One live VMM's jail: who it runs as, its cgroup, the dir it writes snapshots into, and the launcher argv that
 * puts it there.
 *
 * @param sandboxId   whose VMM
 * @param epoch       which boot or restore of that sandbox
 * @param uid         its uid and gid
 * @param cgroup      the sandbox's cgroup, empty where the host has none
 * @param outbox      the one dir outside the run dir it may write: snapshots land here and the daemon moves them out
 * @param root        the host dir its root is mounted on (empty on the host)
 * @param prefix      the launcher's argv up to {@code --}
 * @param environment extra environment for the program
 * @param poolDir     the warm pool dir a claimed member was started in (its writable dir before the claim), removed
 *                    with the jail; empty for a VMM started for its sandbox
 * @param shares      the cgroup of the epoch's virtiofsd ({@link ShareCgroups}), once they joined it; the share set ends it
 */
public record VmmJail(String sandboxId, int epoch, int uid, Optional<SandboxCgroup> cgroup, Path outbox, Path root, List<String> prefix,
                      Map<String, String> environment, Optional<Path> poolDir, Optional<ShareConfinement> shares) {
    public VmmJail {
        prefix = List.copyOf(prefix);
        environment = Map.copyOf(environment);
        poolDir = poolDir == null ? Optional.empty() : poolDir;
        shares = shares == null ? Optional.empty() : shares;
    }

    /** The jail of a claimed warm pool member. */
    public VmmJail(String sandboxId, int epoch, int uid, Optional<SandboxCgroup> cgroup, Path outbox, Path root, List<String> prefix,
                   Map<String, String> environment, Optional<Path> poolDir) {
        this(sandboxId, epoch, uid, cgroup, outbox, root, prefix, environment, poolDir, Optional.empty());
    }

    /** This jail with its epoch's virtiofsd in {@code confinement}. */
    VmmJail withShares(ShareConfinement confinement) {
        return new VmmJail(sandboxId, epoch, uid, cgroup, outbox, root, prefix, environment, poolDir, Optional.of(confinement));
    }

    /** The jail of a VMM started for its sandbox. */
    public VmmJail(String sandboxId, int epoch, int uid, Optional<SandboxCgroup> cgroup, Path outbox, Path root, List<String> prefix,
                   Map<String, String> environment) {
        this(sandboxId, epoch, uid, cgroup, outbox, root, prefix, environment, Optional.empty(), Optional.empty());
    }
}
