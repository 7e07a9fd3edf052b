package dev.ateom.jail;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What one VMM's jail must hold, in the daemon's terms; {@link VmmJails#spec} makes the {@link JailSpec}.
 *
 * @param uid        the VMM's own uid (and gid) from the range
 * @param kvmGid     the group owning {@code /dev/kvm}, when it is not world-accessible
 * @param root       the host dir the jail's root is mounted on
 * @param program    the binary and what it needs to run (its libraries, or a profile's JDK), read-only
 * @param readOnly   kernel, initramfs, a restore's source dir: read-only
 * @param writable   the epoch's run dir and the snapshot outbox: read-write
 * @param mountPointsRw empty dirs (tmpfs) where read-write files are bound in after the start, Landlock read-write
 *                   beneath: a warm pool member's run dir root and sandboxes dir
 * @param mountPointsRo the same for read-only files (its image roots: kernel, initramfs)
 * @param netns      the slot's network namespace, or empty for a new one without a network
 * @param cgroup     the sandbox's cgroup, or empty where the host has none
 * @param nofile     open files at most
 * @param fsizeBytes largest file the VMM may write (a snapshot's memory file is as large as the guest's memory)
 */
public record VmmJailRequest(int uid, OptionalInt kvmGid, Path root, List<Path> program, List<Path> readOnly, List<Path> writable,
                             List<Path> mountPointsRw, List<Path> mountPointsRo, Optional<Path> netns, Optional<SandboxCgroup> cgroup,
                             long nofile, long fsizeBytes) {
    public VmmJailRequest {
        program = List.copyOf(program);
        readOnly = List.copyOf(readOnly);
        writable = List.copyOf(writable);
        mountPointsRw = List.copyOf(mountPointsRw);
        mountPointsRo = List.copyOf(mountPointsRo);
    }

    /** A VMM that gets everything at its start (no mount points). */
    public VmmJailRequest(int uid, OptionalInt kvmGid, Path root, List<Path> program, List<Path> readOnly, List<Path> writable,
                          Optional<Path> netns, Optional<SandboxCgroup> cgroup, long nofile, long fsizeBytes) {
        this(uid, kvmGid, root, program, readOnly, writable, List.of(), List.of(), netns, cgroup, nofile, fsizeBytes);
    }
}
