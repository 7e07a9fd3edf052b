package dev.ateom.microvm.jail;

import dev.ateom.chv.ChvLaunch;
import dev.ateom.jail.BindMount;
import dev.ateom.jail.CgroupDriver;
import dev.ateom.jail.CgroupLimits;
import dev.ateom.jail.JailCommand;
import dev.ateom.jail.JailSpec;
import dev.ateom.jail.SandboxCgroup;
import dev.ateom.jail.VmmJailRequest;
import dev.ateom.jail.VmmJails;
import dev.ateom.microvm.vm.VmmPool;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.System.Logger.Level.WARNING;

/**
 * The jails of the warm pool's members ({@code --jail on}). A member starts before its sandbox is known: its own uid,
 * a cgroup of its own ({@code pool_m<n>}, the member's process start charged there and not to the daemon's), the
 * program's read-only binds, its pool dir writable, a new network namespace without a network, and empty tmpfs mount
 * points at the daemon's run dir, sandboxes dir and image roots, Landlock's rules on them. The claim
 * ({@link #handOver}) binds the sandbox's files in at their host paths, moves the member's processes into the
 * sandbox's cgroup and makes the jail the sandbox's live one, so release, snapshots and adoption see no difference
 * from a jail made for the sandbox.
 */
public final class PoolMemberJails implements VmmPool.MemberJails {
    private static final System.Logger LOG = System.getLogger(PoolMemberJails.class.getName());
    /** Moves of a member's processes into the sandbox's cgroup until none is left behind (a fork meanwhile). */
    private static final int MOVE_ROUNDS = 5;

    private final VmmJailer jailer;
    private final Path runDir;
    private final Path sandboxesDir;
    private final List<Path> imageRoots;
    private final long fileSizeLimit;
    private final Map<Path, Member> members = new ConcurrentHashMap<>();

    /** One started member's jail: its uid, its cgroup until the claim, its root's host dir. */
    private record Member(String name, int uid, Optional<SandboxCgroup> cgroup, Path root, List<Path> mountPoints,
                          List<Path> programPaths) {}

    PoolMemberJails(VmmJailer jailer, Path runDir, Path sandboxesDir, List<Path> imageRoots) {
        this.jailer = jailer;
        this.runDir = runDir.toAbsolutePath().normalize();
        this.sandboxesDir = sandboxesDir.toAbsolutePath().normalize();
        this.imageRoots = imageRoots.stream().map(p -> p.toAbsolutePath().normalize()).toList();
        // fixed at the start, when the guest's memory is unknown (a limit cannot be raised later without CAP_SYS_RESOURCE):
        // room for a snapshot of any guest that fits this host's memory
        this.fileSizeLimit = VmmJailer.fileSizeLimit(HostMemory.totalMib());
    }

    @Override
    public boolean jailed() {
        return true;
    }

    @Override
    public ChvLaunch jail(Path memberDir, ChvLaunch launch) {
        String name = "pool_" + memberDir.getFileName();
        int uid = jailer.allocateUid();
        Optional<SandboxCgroup> cgroup = Optional.empty();
        Path root = jailer.rootsDir.resolve(name);
        try {
            VmmProgram vmm = jailer.program.get();
            long memory = (jailer.config.memoryOverheadMib() + vmm.extraOverheadMib()) << 20;
            CgroupLimits limits = new CgroupLimits(memory, jailer.config.pidsMax(), jailer.config.cpuQuotaFor(1));
            cgroup = jailer.cgroups.map(d -> d.create(name, limits));
            Files.createDirectories(root);
            FileOwnership.give(memberDir, uid, "rwx------");
            List<Path> images = imageMountPoints(vmm.readOnly());
            JailSpec spec = VmmJails.spec(new VmmJailRequest(uid, VmmJailer.kvmGid(), root, vmm.readOnly(), List.of(), List.of(memberDir),
                    List.of(runDir, sandboxesDir), images, Optional.empty(), cgroup, VmmJailer.NOFILE, fileSizeLimit));
            List<Path> mountPoints = new ArrayList<>(images);
            mountPoints.addAll(List.of(runDir, sandboxesDir));
            members.put(memberDir, new Member(name, uid, cgroup, root, mountPoints, vmm.readOnly()));
            // members always die with the daemon: recovery has no record of them
            return launch.withJail(JailCommand.prefix(jailer.launcher, spec, true)).withEnvironment(vmm.environment(memberDir));
        } catch (IOException | RuntimeException e) {
            cgroup.ifPresent(c -> jailer.cgroups.orElseThrow().remove(c));
            jailer.uids.free(uid);
            VmmJailer.deleteQuietly(root);
            if (e instanceof IOException io) throw new UncheckedIOException("cannot prepare the jail of pool member " + memberDir + ": " + io.getMessage(), io);
            throw (RuntimeException) e;
        }
    }

    /**
     * The image roots a member gets a mount point at: those that exist and are not already visible through the program's
     * binds or another mount point ({@code /} never is one).
     */
    private List<Path> imageMountPoints(List<Path> programPaths) {
        List<Path> points = new ArrayList<>();
        for (Path root : imageRoots) {
            if (root.getNameCount() == 0 || !Files.isDirectory(root)) continue;
            if (under(root, programPaths) || root.startsWith(runDir) || root.startsWith(sandboxesDir)) continue;
            points.add(root);
        }
        return points;
    }

    private static boolean under(Path path, List<Path> parents) {
        return parents.stream().anyMatch(path::startsWith);
    }

    @Override
    public void release(Path memberDir) {
        Member member = members.remove(memberDir);
        if (member == null) return;
        try {
            member.cgroup().ifPresent(c -> {
                if (!jailer.cgroups.orElseThrow().remove(c)) LOG.log(WARNING, "cgroup " + c.dirs() + " of pool member " + memberDir + " is left behind");
            });
        } finally {
            jailer.uids.free(member.uid());
            VmmJailer.deleteQuietly(member.root());
        }
    }

    /** The cgroup and jail root names of the members now (kept by {@link VmmJailer#removeLeftovers}). */
    Set<String> names() {
        Set<String> names = ConcurrentHashMap.newKeySet();
        members.values().forEach(m -> names.add(m.name()));
        return names;
    }

    /**
     * Hands the member started in {@code memberDir} (its jail launcher {@code launcherPid}) over to a sandbox's
     * {@code epoch}-th VMM: the run dir, outbox and restore dir handed to its uid and bound into its jail at their host
     * paths with kernel and initramfs, its processes moved into the sandbox's new cgroup (named {@code name}), its own
     * cgroup removed; the jail is then the sandbox's live one. On failure the sandbox's cgroup is removed (with whatever
     * was moved into it) and the member's jail is left for {@link #release}, as the pool discards the member.
     *
     * @throws IllegalStateException when the member cannot be handed over (a kernel outside its mount points, say)
     */
    public VmmJail handOver(Path memberDir, long launcherPid, String sandboxId, String name, int epoch, int vcpus, int memoryMib,
                            List<Path> readOnly, Path epochDir, Optional<Path> restoreDir, Path outbox) {
        Member member = members.remove(memberDir);
        if (member == null) throw new IllegalStateException("no jailed pool member in " + memberDir);
        Optional<SandboxCgroup> cgroup = Optional.empty();
        try {
            if (VmmJailer.fileSizeLimit(memoryMib) > fileSizeLimit) {
                throw new IllegalStateException(memoryMib + " MiB of guest memory need a larger file size limit than a pool member's");
            }
            List<BindMount> binds = new ArrayList<>(List.of(BindMount.writable(epochDir), BindMount.writable(outbox)));
            restoreDir.ifPresent(dir -> binds.add(BindMount.readOnly(dir)));
            for (Path file : readOnly) {
                Path path = file.toAbsolutePath().normalize();
                if (under(path, member.programPaths())) continue; // visible already, read-only
                if (!under(path, member.mountPoints())) {
                    throw new IllegalStateException(path + " is outside the pool member's mount points (the run dir, sandboxes dir and image roots)");
                }
                binds.add(BindMount.readOnly(path));
            }
            for (BindMount bind : binds) {
                if (!under(bind.target(), member.mountPoints())) throw new IllegalStateException(bind.target() + " is outside the pool member's mount points");
            }
            VmmProgram vmm = jailer.program.get();
            cgroup = jailer.sandboxCgroup(name, vcpus, memoryMib, vmm);
            VmmJailer.handFiles(member.uid(), epochDir, restoreDir, outbox);
            MountInjection.run(jailer.launcher, launcherPid, binds);
            if (cgroup.isPresent()) moveAll(jailer.cgroups.orElseThrow(), member.cgroup().orElseThrow(), cgroup.get());
            VmmJail jail = new VmmJail(sandboxId, epoch, member.uid(), cgroup, outbox, member.root(), List.of(), vmm.environment(memberDir),
                    Optional.of(memberDir));
            jailer.register(jail);
            return jail;
        } catch (IOException | RuntimeException e) {
            cgroup.ifPresent(c -> jailer.cgroups.orElseThrow().remove(c));
            members.put(memberDir, member);
            if (e instanceof IOException io) throw new UncheckedIOException("cannot hand pool member " + memberDir + " to " + sandboxId + ": " + io.getMessage(), io);
            throw (RuntimeException) e;
        }
    }

    /** Every process of {@code from} (the launcher, the VMM, what it started) into {@code to}; then {@code from} goes. */
    private static void moveAll(CgroupDriver driver, SandboxCgroup from, SandboxCgroup to) {
        for (int round = 0; round < MOVE_ROUNDS; round++) {
            List<Long> left = driver.pids(from);
            if (left.isEmpty()) {
                if (!driver.remove(from)) LOG.log(WARNING, "cgroup " + from.dirs() + " of a handed-over pool member is left behind");
                return;
            }
            for (long pid : left) {
                try {
                    driver.move(to, pid);
                } catch (RuntimeException e) {
                    // a process that ended meanwhile is no longer there to move
                    if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) throw e;
                }
            }
        }
        throw new IllegalStateException("processes still appear in " + from.dirs() + " after " + MOVE_ROUNDS + " moves");
    }
}
