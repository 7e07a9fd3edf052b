package dev.ateom.microvm.jail;

import dev.ateom.jail.CgroupDriver;
import dev.ateom.jail.CgroupLimits;
import dev.ateom.jail.CgroupMounts;
import dev.ateom.jail.JailCommand;
import dev.ateom.jail.JailLauncher;
import dev.ateom.jail.JailSpec;
import dev.ateom.jail.SandboxCgroup;
import dev.ateom.jail.UidAllocator;
import dev.ateom.jail.VmmJailRequest;
import dev.ateom.jail.VmmJails;
import dev.ateom.microvm.config.JailConfig;
import dev.ateom.virtiofsd.ShareConfinement;
import dev.ateom.virtiofsd.ShareSet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Puts every VMM in a jail of its own ({@code --jail on}): a uid from the range, a cgroup with the sandbox's limits, a
 * root holding only what that VMM needs ({@link VmmJails}), an outbox, and the ownership of the files it reads and
 * writes. A jail belongs to one epoch of its sandbox (one VMM): nothing in it is shared with the sandbox's other epochs,
 * so a resume's new jail is made while its suspend's teardown still ends the old one ({@link LiveJails});
 * {@link #release} ends it (cgroup, uid, root, outbox).
 *
 * <p>The cgroups of this daemon live under {@code ateom-<hash of the state dir>} in each hierarchy, so two
 * daemons on one host never touch each other's; at start whatever a killed daemon left there is removed
 * ({@link #removeLeftovers}) unless recovery adopted it.
 */
public final class VmmJailer {
    private static final System.Logger LOG = System.getLogger(VmmJailer.class.getName());
    static final long NOFILE = 4096;

    final JailConfig config;
    final Path launcher;
    final Path rootsDir;
    final Optional<CgroupDriver> cgroups;
    final UidAllocator uids;
    final Supplier<VmmProgram> program;
    private final Optional<ShareCgroups> shareCgroups;
    private final LiveJails live = new LiveJails();
    private final Set<String> adoptedCgroups = ConcurrentHashMap.newKeySet();
    private volatile PoolMemberJails poolMembers;

    private VmmJailer(JailConfig config, Path launcher, Path rootsDir, Optional<CgroupDriver> cgroups, Supplier<VmmProgram> program) {
        this.config = config;
        this.launcher = launcher;
        this.rootsDir = rootsDir;
        this.cgroups = cgroups;
        this.uids = new UidAllocator(config.uidRange());
        this.program = program;
        this.shareCgroups = cgroups.map(d -> new ShareCgroups(d, config));
    }

    /** A jailer that jails nothing ({@code --jail off}). */
    public static VmmJailer off(JailConfig config) {
        return new VmmJailer(config, null, null, Optional.empty(), () -> null);
    }

    /**
     * The jailer of a daemon with {@code stateDir} and {@code runDir}; fails when the jail is on and cannot be had
     * (no launcher, not root): a VMM is jailed or not started.
     *
     * @param binary the hypervisor binary, empty when there is none (nothing will be jailed then)
     */
    public static VmmJailer start(JailConfig config, Path stateDir, Path runDir, Optional<Path> binary) {
        if (!config.enabled()) {
            LOG.log(WARNING, "--jail off: every cloud-hypervisor runs as root in the host's namespaces without limits; a guest that "
                    + "escapes into its VMM reaches the whole host and every sandbox. Use this for debugging only.");
            return off(config);
        }
        Path launcher = JailLauncher.find().orElseThrow(() -> new IllegalStateException("--jail on, but the ateom-jail launcher is "
                + "not found (build the jail module, or set -Dateom.jail.launcher / ATEOM_JAIL_LAUNCHER); --jail off runs VMMs unjailed"));
        String parent = cgroupParent(stateDir);
        Optional<CgroupDriver> cgroups;
        try {
            cgroups = CgroupMounts.ofHost().driver(parent);
        } catch (RuntimeException e) {
            LOG.log(WARNING, "cannot create the cgroup parent " + parent + " (" + e.getMessage() + "): VMMs are jailed without cgroup limits");
            cgroups = Optional.empty();
        }
        if (cgroups.isEmpty()) {
            LOG.log(WARNING, "this host has neither cgroup v2 with memory, pids and cpu nor the v1 hierarchies: VMMs are jailed "
                    + "without memory, pids and CPU limits");
        } else {
            LOG.log(INFO, "VMM jails: cgroup v" + cgroups.get().version() + " under " + cgroups.get().parents() + ", uids " + config.uidRange());
        }
        Path rootsDir = runDir.resolve(".jail");
        try {
            Files.createDirectories(rootsDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + rootsDir, e);
        }
        Map<Path, VmmProgram> programs = new ConcurrentHashMap<>();
        Supplier<VmmProgram> program = () -> programs.computeIfAbsent(binary.orElseThrow(), VmmProgram::of);
        return new VmmJailer(config, launcher, rootsDir, cgroups, program);
    }

    /** The name of this state dir's cgroup parent in each hierarchy: {@code ateom-<hash of the state dir>}. */
    public static String cgroupParent(Path stateDir) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(stateDir.toAbsolutePath().normalize().toString()
                    .getBytes(StandardCharsets.UTF_8));
            return "ateom-" + HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public boolean enabled() {
        return config.enabled();
    }

    public Optional<CgroupDriver> cgroups() {
        return cgroups;
    }

    /** Bytes of memory each live jailed sandbox's current cgroups use now (its VMM's and its virtiofsd's), by sandbox id. */
    public Map<String, Long> memoryUsage() {
        Map<String, Long> usage = new TreeMap<>();
        cgroups.ifPresent(d -> live.currents().forEach(j -> {
            List<SandboxCgroup> both = new ArrayList<>();
            j.cgroup().ifPresent(both::add);
            j.shares().ifPresent(s -> both.add(d.existing(s.name(), new CgroupLimits(1, 1, 0))));
            long bytes = 0;
            boolean any = false;
            for (SandboxCgroup c : both) {
                OptionalLong used = d.memoryUsage(c);
                if (used.isPresent()) {
                    bytes += used.getAsLong();
                    any = true;
                }
            }
            if (any) usage.put(j.sandboxId(), bytes);
        }));
        return usage;
    }

    /** The jail of a sandbox's {@code epoch}-th VMM, while it is live. */
    public Optional<VmmJail> jailOf(String sandboxId, int epoch) {
        return live.of(sandboxId, epoch);
    }

    /** The name of the cgroup and root of a sandbox's {@code epoch}-th VMM started cold (an epoch's own: see the class doc). */
    static String jailName(String name, int epoch) {
        return name + "-e" + epoch;
    }

    /**
     * A new jail for the {@code epoch}-th VMM of a sandbox: uid, cgroup, the run dir, outbox and restore dir handed
     * to that uid. Undone entirely when any step fails.
     *
     * @param name        the sandbox's short name (its run dir's): the cgroup and root are named after it and the epoch
     * @param readOnly    kernel and initramfs
     * @param restoreDir  a restore's source dir, read-only
     * @param outbox      the epoch's own outbox
     */
    public VmmJail prepare(String sandboxId, String name, int epoch, int vcpus, int memoryMib, List<Path> readOnly, Path runDir,
                           Optional<Path> restoreDir, Path outbox, boolean dieWithDaemon) {
        int uid = allocateUid();
        Optional<SandboxCgroup> cgroup = Optional.empty();
        String jailName = jailName(name, epoch);
        Path root = rootsDir.resolve(jailName);
        try {
            VmmProgram vmm = program.get();
            cgroup = sandboxCgroup(jailName, vcpus, memoryMib, vmm);
            Files.createDirectories(root);
            handFiles(uid, runDir, restoreDir, outbox);
            List<Path> ro = new ArrayList<>(readOnly);
            restoreDir.ifPresent(ro::add);
            long fsize = fileSizeLimit(memoryMib);
            JailSpec spec = VmmJails.spec(new VmmJailRequest(uid, kvmGid(), root, vmm.readOnly(), ro, List.of(runDir, outbox),
                    Optional.empty(), cgroup, NOFILE, fsize));
            VmmJail jail = new VmmJail(sandboxId, epoch, uid, cgroup, outbox, root, JailCommand.prefix(launcher, spec, dieWithDaemon),
                    vmm.environment(runDir));
            live.put(jail);
            return jail;
        } catch (IOException | RuntimeException e) {
            cgroup.ifPresent(c -> cgroups.orElseThrow().remove(c));
            uids.free(uid);
            deleteQuietly(root);
            if (e instanceof IOException io) throw new UncheckedIOException("cannot prepare the jail of " + sandboxId + ": " + io.getMessage(), io);
            throw (RuntimeException) e;
        }
    }

    int allocateUid() {
        return uids.allocate().orElseThrow(() -> new IllegalStateException("every uid of --jail-uid-range " + config.uidRange()
                + " is taken by a live VMM"));
    }

    /** A cgroup named {@code name} with a sandbox's limits: the guest's memory, the overhead, the program's own. */
    Optional<SandboxCgroup> sandboxCgroup(String name, int vcpus, int memoryMib, VmmProgram vmm) {
        CgroupLimits limits = sandboxLimits(vcpus, memoryMib, vmm);
        return cgroups.map(d -> d.create(name, limits));
    }

    CgroupLimits sandboxLimits(int vcpus, int memoryMib, VmmProgram vmm) {
        long memory = ((long) memoryMib + config.memoryOverheadMib() + vmm.extraOverheadMib()) << 20;
        return new CgroupLimits(memory, config.pidsMax(), config.cpuQuotaFor(vcpus));
    }

    /** A snapshot's memory file is as large as the guest's memory: the file size limit leaves room for it. */
    static long fileSizeLimit(long memoryMib) {
        return (memoryMib + 1024) << 20;
    }

    /**
     * The epoch's run dir and the outbox (made empty) to the VMM's uid, a restore dir readable by it; the restore dir is
     * handed over before it is filled, and its files are made readable once they are ({@link #filledAfterHandOver}).
     */
    static void handFiles(int uid, Path runDir, Optional<Path> restoreDir, Path outbox) throws IOException {
        FileOwnership.give(runDir, uid, "rwx------");
        recreate(outbox);
        FileOwnership.give(outbox, uid, "rwx------");
        if (restoreDir.isPresent()) FileOwnership.give(restoreDir.get(), uid, "r-x------");
    }

    /**
     * The files of a restore dir handed to its VMM ({@link #handFiles}) before they were written, readable by all once
     * they are: the dir itself, the VMM's alone, is what limits who reaches them.
     */
    public void filledAfterHandOver(Path restoreDir) {
        FileOwnership.readableByAll(restoreDir);
    }

    /** A jail made elsewhere (a warm pool member handed over) is now the sandbox's live one. */
    void register(VmmJail jail) {
        live.put(jail);
    }

    /**
     * The jails of the warm pool's members: each started with empty mount points at {@code runDir},
     * {@code sandboxesDir} and the image roots, where its sandbox's files are bound in at the claim.
     */
    public synchronized PoolMemberJails poolMembers(Path runDir, Path sandboxesDir, List<Path> imageRoots) {
        if (!config.enabled()) throw new IllegalStateException("--jail off: pool members are not jailed");
        if (poolMembers == null) poolMembers = new PoolMemberJails(this, runDir, sandboxesDir, imageRoots);
        return poolMembers;
    }

    static void recreate(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (var entries = Files.walk(dir)) {
                for (Path p : entries.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            }
        }
        Files.createDirectories(dir);
    }

    /** The group of {@code /dev/kvm} when others may not open it (the VMM's one supplementary group). */
    static OptionalInt kvmGid() {
        Path kvm = Path.of("/dev/kvm");
        if (!Files.exists(kvm)) return OptionalInt.empty();
        try {
            var mode = Files.getPosixFilePermissions(kvm);
            if (mode.contains(PosixFilePermission.OTHERS_READ)
                    && mode.contains(PosixFilePermission.OTHERS_WRITE)) return OptionalInt.empty();
            int gid = (Integer) Files.getAttribute(kvm, "unix:gid");
            return gid == 0 ? OptionalInt.empty() : OptionalInt.of(gid);
        } catch (IOException e) {
            return OptionalInt.empty();
        }
    }

    /** The name of the cgroup of a sandbox's {@code epoch}-th virtiofsd ({@link ShareCgroups}). */
    public static String sharesCgroupName(String name, int epoch) {
        return jailName(name, epoch) + ShareCgroups.SUFFIX;
    }

    /**
     * Confines a share set started ahead of its bring-up in a cgroup of its own named {@code name}
     * ({@link #sharesCgroupName}, or a clone made ahead's token and {@code -fs}), off any bring-up's path: the
     * bring-up that claims it only hands its sockets over ({@link #joinShares}). Nothing when the jail is off or the
     * host has no cgroup. Throws when it fails (the set is not confined then, and nothing of the cgroup is left).
     */
    public void confineAhead(ShareSet shares, String name, int vcpus) {
        if (!config.enabled()) return;
        shareCgroups.ifPresent(c -> c.confine(shares, name, vcpus));
    }

    /**
     * The epoch's virtiofsd given to its jailed VMM: confined in their own cgroup {@code name} now unless that was done
     * when they were started ahead ({@link #confineAhead}), their sockets handed to the VMM's uid, and the jail
     * recording where they are. Confining now waits for an RCU grace period in the kernel (8-21 ms here, the first
     * write to a {@code cgroup.procs} after a quiet moment; the writes right after it take 0.04 ms).
     */
    public void joinShares(VmmJail jail, ShareSet shares, String name, int vcpus) {
        if (shares.confinement().isEmpty()) shareCgroups.ifPresent(c -> c.confine(shares, name, vcpus));
        for (var share : shares.processes().values()) FileOwnership.give(share.socketPath(), jail.uid(), "rw-------");
        shares.confinement().ifPresent(c -> live.replace(jail, jail.withShares(c)));
    }

    /**
     * A snapshot by a jailed VMM: written into its outbox (the one place outside its run dir it can write), then
     * moved into {@code destination} and taken back by root, readable for the next VMM of whatever uid.
     *
     * @param snapshot asks CHV to write a snapshot into the given dir
     */
    public void snapshot(String sandboxId, Path destination, Consumer<Path> snapshot) {
        VmmJail jail = live.current(sandboxId).orElse(null);
        if (jail == null) {
            snapshot.accept(destination);
            return;
        }
        Path out = jail.outbox().resolve("snapshot");
        try {
            recreate(out);
            FileOwnership.give(out, jail.uid(), "rwx------");
            snapshot.accept(out);
            FileOwnership.takeBack(out);
            Files.createDirectories(destination);
            try (var files = Files.list(out)) {
                for (Path f : files.toList()) Files.move(f, destination.resolve(f.getFileName()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot move the snapshot of " + sandboxId + " out of its VMM's outbox: " + e.getMessage(), e);
        } finally {
            deleteQuietly(out);
        }
    }

    /**
     * Ends the jail of a sandbox's {@code epoch}-th VMM (after the VMM is gone): cgroup, uid, root, outbox. A later
     * epoch's jail of the sandbox, made meanwhile, is not touched.
     */
    public void release(String sandboxId, int epoch) {
        VmmJail jail = live.remove(sandboxId, epoch).orElse(null);
        if (jail == null) return;
        jail.cgroup().ifPresent(c -> {
            if (!cgroups.orElseThrow().remove(c)) LOG.log(WARNING, "cgroup " + c.dirs() + " of " + sandboxId + " is left behind");
        });
        uids.free(jail.uid());
        deleteQuietly(jail.root());
        deleteQuietly(jail.outbox());
        jail.poolDir().ifPresent(VmmJailer::deleteQuietly);
    }

    /**
     * A survivor of a killed daemon kept running (adopted): its uid and cgroup stay taken.
     *
     * @param cgroupName its cgroup's name as recorded, empty where the host offered none
     * @param root       the host dir its root is mounted on
     * @param outbox     its outbox
     */
    public void adopt(String sandboxId, int epoch, int uid, Optional<String> cgroupName, Path root, Path outbox) {
        if (!config.enabled()) return;
        uids.adopt(uid);
        Optional<SandboxCgroup> cgroup = cgroupName.flatMap(name -> cgroups.map(d -> d.existing(name, new CgroupLimits(1, 1, 0))));
        cgroup.ifPresent(c -> adoptedCgroups.add(c.name()));
        live.put(new VmmJail(sandboxId, epoch, uid, cgroup, outbox, root, List.of(), Map.of()));
    }

    /**
     * The recorded cgroup of an adopted survivor's virtiofsd, kept as it is: the adopted share set ends it, as it would
     * have. Empty where none was recorded (a host without cgroups, a daemon before the shares had their own: they were
     * in the VMM's then).
     */
    public Optional<ShareConfinement> adoptShares(String sandboxId, int epoch, Optional<String> name) {
        if (!config.enabled() || name.isEmpty() || shareCgroups.isEmpty()) return Optional.empty();
        ShareConfinement confinement = shareCgroups.get().adopt(name.get());
        live.of(sandboxId, epoch).ifPresent(jail -> live.replace(jail, jail.withShares(confinement)));
        return Optional.of(confinement);
    }

    /**
     * The host dir of a cold jail's root: where a record of a daemon before it was recorded gets it from (named after
     * the sandbox and epoch, as its cgroup was after the sandbox alone).
     */
    public Path rootOf(String name, int epoch) {
        return rootsDir.resolve(jailName(name, epoch));
    }

    /** Removes the cgroups (killing what runs in them) and roots a previous daemon left that no adopted VMM uses. */
    public void removeLeftovers() {
        if (!config.enabled()) return;
        PoolMemberJails members = poolMembers;
        Set<String> memberNames = members == null ? Set.of() : members.names();
        cgroups.ifPresent(d -> {
            Set<String> sharesInUse = shareCgroups.map(ShareCgroups::live).orElse(Set.of());
            for (String name : d.children()) {
                if (adoptedCgroups.contains(name) || memberNames.contains(name) || sharesInUse.contains(name)) continue;
                LOG.log(INFO, "removing the leftover VMM cgroup " + name + " of a previous daemon");
                d.remove(d.existing(name, new CgroupLimits(1, 1, 0)));
            }
        });
        try (var roots = Files.list(rootsDir)) {
            Set<Path> used = ConcurrentHashMap.newKeySet();
            live.all().forEach(j -> used.add(j.root()));
            memberNames.forEach(n -> used.add(rootsDir.resolve(n)));
            roots.filter(r -> !used.contains(r)).forEach(VmmJailer::deleteQuietly);
        } catch (IOException e) {
            LOG.log(WARNING, "cannot list " + rootsDir + ": " + e.getMessage());
        }
    }

    /**
     * At the daemon's stop: its cgroup parents and roots dir go when no VMM is left in them (VMMs that outlive the
     * daemon keep theirs for the next daemon to adopt).
     */
    public void close() {
        if (!config.enabled()) return;
        cgroups.ifPresent(d -> {
            if (!d.children().isEmpty()) return;
            for (Path parent : d.parents()) {
                try {
                    Files.deleteIfExists(parent);
                } catch (IOException e) {
                    LOG.log(WARNING, "cannot remove the cgroup parent " + parent + ": " + e.getMessage());
                }
            }
        });
        try {
            Files.deleteIfExists(rootsDir);
        } catch (IOException e) {
            // a survivor's root is still there: the next daemon's
        }
    }

    static void deleteQuietly(Path path) {
        if (path == null || !Files.exists(path)) return;
        try (var entries = Files.walk(path)) {
            for (Path p : entries.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException e) {
            LOG.log(WARNING, "cannot remove " + path + ": " + e.getMessage());
        }
    }
}
