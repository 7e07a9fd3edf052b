package dev.ateom.microvm.jail;

import dev.ateom.chv.ChvLaunch;
import dev.ateom.chv.ChvProcess;
import dev.ateom.jail.BindMount;
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
 * a cgroup of its own ({@code pool_m<n>}, bounded before any claim, its start charged there), the program's read-only
 * binds, its pool dir writable, a new network namespace without a network, and empty tmpfs mount points at the
 * daemon's run dir, sandboxes dir and image roots, Landlock's rules on them. Once it answers, an injector is started
 * for it ({@link MountInjector}). The claim ({@link #handOver}) has the injector bind the sandbox's files in at their
 * host paths and writes the sandbox's limits over the member's cgroup, which is the sandbox's from then on; the jail
 * is then the sandbox's live one, so release, snapshots and adoption see no difference from a jail made for it.
 *
 * <p>Until the claim a member's cgroup has the lowest CPU weight ({@link #MEMBER_CPU_WEIGHT}); the claim gives it a
 * sandbox's. A member is started when another is claimed, i.e. in the middle of a create, resume or clone, and its
 * start (the jail, then the VMM until it answers) would otherwise take CPU from the VMM being restored and from the
 * virtiofsd started ahead for it, which sit beside it under this daemon's cgroup parent. Caveats: the weight ranks it
 * against those siblings only; the parent as a whole still competes, at the parent's weight, with the daemon's own
 * threads and with virtiofsd not yet confined (a set a bring-up starts itself runs in the daemon's cgroup until the
 * hand-over). And on a host whose guests keep every core busy a member starts slowly: the claims then find the pool
 * empty and start their VMM cold, at a sandbox's weight, as whenever the pool is empty. The pool uses what the
 * sandboxes leave, not what they need.
 */
public final class PoolMemberJails implements VmmPool.MemberJails {
    private static final System.Logger LOG = System.getLogger(PoolMemberJails.class.getName());

    /** cgroup v2's lowest: a member starts with what its siblings leave, and gets all of an idle host. */
    static final int MEMBER_CPU_WEIGHT = 1;

    private final VmmJailer jailer;
    private final Path runDir;
    private final Path sandboxesDir;
    private final List<Path> imageRoots;
    private final long fileSizeLimit;
    private final Map<Path, Member> members = new ConcurrentHashMap<>();
    private final Map<Path, MountInjector> injectors = new ConcurrentHashMap<>();

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
            CgroupLimits limits = new CgroupLimits(memory, jailer.config.pidsMax(), jailer.config.cpuQuotaFor(1), MEMBER_CPU_WEIGHT);
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
    public void started(Path memberDir, ChvProcess chv) {
        if (!members.containsKey(memberDir)) throw new IllegalStateException("no jailed pool member in " + memberDir);
        injectors.put(memberDir, MountInjector.startFor(jailer.launcher, chv.pid()));
    }

    @Override
    public void release(Path memberDir) {
        MountInjector injector = injectors.remove(memberDir);
        if (injector != null) injector.close();
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
     * Why no member can be handed to a sandbox with these files and memory (a kernel outside the members' mount points,
     * more memory than their file size limit has room for), or empty when one can (or none is there to ask). Asked
     * before a claim, so such a sandbox gets a cold VMM without a member thrown away.
     */
    public Optional<String> misfit(int memoryMib, List<Path> readOnly, Path epochDir, Optional<Path> restoreDir, Path outbox) {
        // every member is made alike: any one answers for all
        Optional<Member> any = members.values().stream().findAny();
        try {
            any.ifPresent(member -> binds(member, memoryMib, readOnly, epochDir, restoreDir, outbox));
            return Optional.empty();
        } catch (IllegalStateException e) {
            return Optional.of(e.getMessage());
        }
    }

    /** The binds a member needs for its sandbox, each below one of its mount points; throws when one is not. */
    private List<BindMount> binds(Member member, int memoryMib, List<Path> readOnly, Path epochDir, Optional<Path> restoreDir, Path outbox) {
        if (VmmJailer.fileSizeLimit(memoryMib) > fileSizeLimit) {
            throw new IllegalStateException(memoryMib + " MiB of guest memory need a larger file size limit than a pool member's");
        }
        List<BindMount> binds = new ArrayList<>(List.of(BindMount.writable(epochDir), BindMount.writable(outbox)));
        restoreDir.ifPresent(dir -> binds.add(BindMount.readOnly(dir)));
        for (Path file : readOnly) {
            Path path = file.toAbsolutePath().normalize();
            if (under(path, member.programPaths())) continue; // visible already, read-only
            binds.add(BindMount.readOnly(path));
        }
        for (BindMount bind : binds) {
            if (!under(bind.target(), member.mountPoints())) {
                throw new IllegalStateException(bind.target() + " is outside the pool member's mount points (the run dir, sandboxes dir and "
                        + "image roots)");
            }
        }
        return binds;
    }

    /**
     * Hands the member started in {@code memberDir} over to a sandbox's {@code epoch}-th VMM: the run dir, outbox and
     * restore dir handed to its uid and bound into its jail at their host paths with kernel and initramfs, the sandbox's
     * limits written over the member's cgroup; the jail is then the sandbox's live one. On failure the member's jail is
     * left for {@link #release}, as the pool discards the member.
     *
     * @throws IllegalStateException when the member cannot be handed over (a kernel outside its mount points, say)
     */
    public VmmJail handOver(Path memberDir, String sandboxId, int epoch, int vcpus, int memoryMib, List<Path> readOnly, Path epochDir,
                            Optional<Path> restoreDir, Path outbox) {
        Member member = members.remove(memberDir);
        if (member == null) throw new IllegalStateException("no jailed pool member in " + memberDir);
        MountInjector injector = injectors.remove(memberDir);
        try {
            if (injector == null) throw new IllegalStateException("pool member " + memberDir + " has no injector");
            List<BindMount> binds = binds(member, memoryMib, readOnly, epochDir, restoreDir, outbox);
            VmmProgram vmm = jailer.program.get();
            VmmJailer.handFiles(member.uid(), epochDir, restoreDir, outbox);
            injector.inject(binds);
            // the member's cgroup becomes the sandbox's: its limits written over the member's (nothing moves)
            Optional<SandboxCgroup> cgroup = member.cgroup().map(c -> jailer.cgroups.orElseThrow().limit(c, jailer.sandboxLimits(vcpus, memoryMib, vmm)));
            VmmJail jail = new VmmJail(sandboxId, epoch, member.uid(), cgroup, outbox, member.root(), List.of(), vmm.environment(memberDir),
                    Optional.of(memberDir));
            jailer.register(jail);
            return jail;
        } catch (IOException | RuntimeException e) {
            // the pool discards the member: release then kills it and removes its cgroup, uid and root
            if (injector != null) injector.close();
            members.put(memberDir, member);
            if (e instanceof IOException io) throw new UncheckedIOException("cannot hand pool member " + memberDir + " to " + sandboxId + ": " + io.getMessage(), io);
            throw (RuntimeException) e;
        }
    }
}
