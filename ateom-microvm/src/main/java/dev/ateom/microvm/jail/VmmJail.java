package dev.ateom.microvm.jail;

import dev.ateom.jail.SandboxCgroup;

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
 */
public record VmmJail(String sandboxId, int epoch, int uid, Optional<SandboxCgroup> cgroup, Path outbox, Path root, List<String> prefix,
                      Map<String, String> environment, Optional<Path> poolDir) {
    public VmmJail {
        prefix = List.copyOf(prefix);
        environment = Map.copyOf(environment);
        poolDir = poolDir == null ? Optional.empty() : poolDir;
    }

    /** The jail of a VMM started for its sandbox. */
    public VmmJail(String sandboxId, int epoch, int uid, Optional<SandboxCgroup> cgroup, Path outbox, Path root, List<String> prefix,
                   Map<String, String> environment) {
        this(sandboxId, epoch, uid, cgroup, outbox, root, prefix, environment, Optional.empty());
    }
}
