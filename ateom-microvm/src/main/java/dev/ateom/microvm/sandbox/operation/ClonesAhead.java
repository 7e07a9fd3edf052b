package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.PrivateDirs;
import dev.ateom.microvm.sandbox.Rollback;
import dev.ateom.microvm.sandbox.SnapshotCatalog;
import dev.ateom.microvm.sandbox.SnapshotRestores;
import dev.ateom.microvm.sandbox.TreeRemoval;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.virtiofsd.ShareSet;
import dev.ateom.virtiofsd.ShareSetsAhead;
import dev.ateom.virtiofsd.ShareSpec;
import dev.ateom.virtiofsd.VirtiofsdLauncher;
import dev.ateom.virtiofsd.VirtiofsdProcess;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.stream.Stream;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The next clone of a recently cloned snapshot, made ahead ({@code --clone-ahead N}): its durable dir extracted from the
 * snapshot's archive and an empty system-info dir under {@code <state>/clones-ahead/<token>/}, and its three virtiofsd
 * serving them from {@code <run>/.clones-ahead/<token>/e1/}, for at most N snapshots (the least recently cloned makes room). A
 * clone of the snapshot {@linkplain #take takes} them: the two dirs move into its sandbox dir and each share's log and
 * pid file into its first epoch's run dir (renames on one filesystem), its socket is linked there (a second name of the
 * socket's file: {@link #moveFiles} says why not a rename), each virtiofsd {@linkplain VirtiofsdProcess#relocate learns
 * its new paths}, and the clone goes on as if it had made them itself: system-info is regenerated for its identity, the bring-up
 * checks the shares are exactly the ones it would start and all still run. What is made ahead belongs to nobody until
 * then: it holds the snapshot's own files and no identity, token or secret of any sandbox.
 *
 * <p>Caveats. Only processes that die with the daemon are started for nobody (recovery finds no record of them), so it
 * is off when children outlive the daemon; a start sweeps what a killed daemon left ({@link #removeLeftovers}). With
 * the jail the virtiofsd are confined once serving, in a cgroup of their own that the clone keeps (named after what is
 * made ahead, {@code clone-ahead-<token>-fs}), so the clone only hands their sockets to its VMM. Each snapshot made
 * ahead keeps three idle virtiofsd and a copy of its durable dir on disk. A relocated virtiofsd keeps its first socket
 * path in the kernel's socket table and its command line, so a scan for leftovers by the clone's path does not find it;
 * which is why only processes that die with the daemon are relocated, and why the start's sweep kills by the first
 * paths. The first socket names stay until their processes are gone.
 */
public final class ClonesAhead implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ClonesAhead.class.getName());
    /** One snapshot's next clone: its dirs, and its shares once started. */
    private record Made(String snapshotId, SandboxLayout layout, CompletableFuture<ShareSet> ready) {}

    private final int budget;
    private final Path root;
    private final Path runRoot;
    /** By snapshot, the least recently cloned first. */
    private final Map<String, Made> made = new LinkedHashMap<>();
    /** The threads making (and first dropping what made room): a close waits for them. */
    private final Set<Thread> workers = ConcurrentHashMap.newKeySet();
    private boolean closed;

    /**
     * @param root    where the dirs are made ({@code <state>/clones-ahead}): on the sandboxes' filesystem, so they move by rename
     * @param runRoot where their run dirs are made ({@code <run>/.clones-ahead}): on the sandboxes' run dirs' filesystem
     * @param budget  the most snapshots with a clone made ahead; 0: none
     */
    ClonesAhead(Path root, Path runRoot, int budget) {
        if (budget < 0) throw new IllegalArgumentException("budget must be ≥ 0, not " + budget);
        this.root = root;
        this.runRoot = runRoot;
        this.budget = budget;
    }

    /** Whether {@link #makeNext} makes anything (a budget above 0, not closed). */
    synchronized boolean enabled() { return budget > 0 && !closed; }

    /** How many snapshots have a clone made or being made. */
    synchronized int size() { return made.size(); }

    /**
     * After a clone of {@code source}: its next clone is made on a virtual thread (this returns at once), unless one is
     * made already. The least recently cloned snapshot's makes room when the budget is full (killed on that thread first,
     * so the clone's answer does not wait for it).
     *
     * @param specs   the shares the next clone will need, given the layout of what is made ahead
     * @param confine where the shares go once serving (the jail's cgroup for them), given what is made ahead's layout
     */
    void makeNext(SnapshotCatalog.SnapshotHandle source, VirtiofsdLauncher launcher,
                  Function<SandboxLayout, List<ShareSpec>> specs, BiConsumer<ShareSet, SandboxLayout> confine) {
        List<Made> dropped = new ArrayList<>();
        Thread worker;
        synchronized (this) {
            if (closed || budget == 0) return;
            Made existing = made.remove(source.id());
            if (existing != null) {
                made.put(source.id(), existing); // now the most recently cloned
                return;
            }
            while (made.size() >= budget) {
                Made oldest = made.values().iterator().next();
                made.remove(oldest.snapshotId());
                dropped.add(oldest);
            }
            Made next = new Made(source.id(), layoutFor(newToken()), new CompletableFuture<>());
            made.put(source.id(), next);
            worker = Thread.ofVirtual().name("clone-ahead-" + next.layout().sandboxId()).unstarted(() -> {
                try {
                    dropped.forEach(ClonesAhead::discard);
                    make(next, source, launcher, specs, confine);
                } finally {
                    workers.remove(Thread.currentThread());
                }
            });
            workers.add(worker);
        }
        worker.start();
    }

    private static void make(Made next, SnapshotCatalog.SnapshotHandle source, VirtiofsdLauncher launcher,
                             Function<SandboxLayout, List<ShareSpec>> specs, BiConsumer<ShareSet, SandboxLayout> confine) {
        SandboxLayout layout = next.layout();
        try {
            PrivateDirs.ensure(layout.sandboxDir().getParent());
            PrivateDirs.ensure(layout.sandboxDir());
            Files.createDirectories(layout.systemInfoDir());
            SnapshotRestores.extractDurable(source, layout.durableDir());
            PrivateDirs.ensure(layout.runDir().getParent());
            PrivateDirs.ensure(layout.runDir());
            Files.createDirectories(layout.epoch(1).dir());
            ShareSet set = ShareSet.start(launcher, specs.apply(layout));
            try {
                // relocated only once serving (their set-up opens the shared dirs by path); off any path, so waited for here
                set.awaitServing();
                confine.accept(set, layout);
            } catch (RuntimeException e) {
                set.kill();
                throw e;
            }
            next.ready().complete(set);
            LOG.log(INFO, "the next clone of snapshot " + source.id() + " is made ahead (" + layout.sandboxId() + ")");
        } catch (Throwable e) {
            LOG.log(WARNING, "making the next clone of snapshot " + source.id() + " ahead failed (its clone makes its own): "
                    + e.getMessage());
            removeDirs(layout);
            next.ready().completeExceptionally(e);
        }
    }

    /**
     * What is made ahead for a clone of {@code snapshotId}, moved into the new sandbox's {@code layout} (whose system-info
     * and run dirs exist and are empty, its durable dir absent), once made (waiting for it if need be), if its shares
     * would be exactly {@code wanted} there and all still run. Otherwise empty and nothing moved: what was made is
     * killed and removed, and the clone makes its own. Either way the snapshot has nothing made ahead afterwards. What
     * was taken is stopped by {@code rollback}.
     */
    Optional<ShareSetsAhead.Claim> take(String snapshotId, SandboxLayout layout, List<ShareSpec> wanted, Rollback rollback) {
        Made taken;
        synchronized (this) {
            taken = made.remove(snapshotId);
        }
        if (taken == null) return Optional.empty();
        ShareSet set;
        try {
            set = taken.ready().join();
        } catch (CompletionException e) {
            return Optional.empty(); // make() said why and removed its dirs
        }
        SandboxLayout from = taken.layout();
        Map<VirtiofsdProcess, ShareSpec> moves = new LinkedHashMap<>();
        set.processes().values().forEach(p -> moves.put(p, relocated(p.spec(), from, layout)));
        if (!Set.copyOf(moves.values()).equals(Set.copyOf(wanted))) {
            LOG.log(INFO, "the clone made ahead for snapshot " + snapshotId + " serves other shares than " + layout.sandboxId()
                    + " needs; stopping it");
            discard(taken);
            return Optional.empty();
        }
        if (!set.processes().values().stream().allMatch(VirtiofsdProcess::isAlive)) {
            LOG.log(WARNING, "a virtiofsd of the clone made ahead for snapshot " + snapshotId + " exited before its claim; stopping the rest");
            discard(taken);
            return Optional.empty();
        }
        try {
            Files.createDirectories(layout.epoch(1).dir());
            for (Map.Entry<VirtiofsdProcess, ShareSpec> move : moves.entrySet()) moveFiles(move.getKey().spec(), move.getValue());
            Files.move(from.systemInfoDir(), layout.systemInfoDir(), StandardCopyOption.ATOMIC_MOVE);
            Files.move(from.durableDir(), layout.durableDir(), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            LOG.log(WARNING, "moving the clone made ahead for snapshot " + snapshotId + " into " + layout.sandboxId()
                    + " failed (it makes its own): " + e);
            discard(taken);
            // what moved already is the new sandbox's to lay again: its system-info and run dir empty, no durable dir
            TreeRemoval.removeRecursively(layout.durableDir());
            emptyQuietly(layout.systemInfoDir());
            emptyQuietly(layout.runDir());
            return Optional.empty();
        }
        moves.forEach(VirtiofsdProcess::relocate);
        rollback.add("stop the virtiofsd made ahead", set::kill);
        LOG.log(INFO, layout.sandboxId() + " takes the clone of snapshot " + snapshotId + " made ahead (" + from.sandboxId()
                + ", virtiofsd " + set.processes().values().stream().map(VirtiofsdProcess::pid).toList() + ")");
        TreeRemoval.removeRecursively(from.sandboxDir());
        // the sockets' first names stay until their processes are gone (see moveFiles)
        CompletableFuture.allOf(set.processes().values().stream().map(VirtiofsdProcess::onExit).toArray(CompletableFuture[]::new))
                .whenComplete((done, failure) -> TreeRemoval.removeRecursively(from.runDir()));
        return Optional.of(ShareSetsAhead.Claim.of(layout.sandboxId(), set));
    }

    /** Kills and removes what is made for {@code snapshotId} (the snapshot was deleted); nothing when there is none. */
    void discard(String snapshotId) {
        Made dropped;
        synchronized (this) {
            dropped = made.remove(snapshotId);
        }
        if (dropped != null) discard(dropped);
    }

    /** Kills and removes everything made; nothing is made after this. */
    @Override
    public void close() {
        List<Made> dropped;
        synchronized (this) {
            closed = true;
            dropped = List.copyOf(made.values());
            made.clear();
        }
        dropped.forEach(ClonesAhead::discard);
        // what made room is killed by its maker's thread
        for (Thread worker : List.copyOf(workers)) {
            try {
                worker.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * At start, before anything is made: the dirs a killed daemon left (its virtiofsd died with it; any still serving
     * on a socket there is killed first, by its path).
     */
    void removeLeftovers(VirtiofsdLauncher launcher) {
        if (launcher != null) {
            try (Stream<Path> runs = Files.isDirectory(runRoot) ? Files.list(runRoot) : Stream.empty()) {
                runs.forEach(run -> ProcessLeftovers.killInRunDir(launcher, run.getFileName().toString(), run));
            } catch (IOException e) {
                LOG.log(WARNING, "cannot list " + runRoot + " for clones made ahead by a previous daemon: " + e.getMessage());
            }
        }
        TreeRemoval.removeRecursively(runRoot);
        TreeRemoval.removeRecursively(root);
    }

    /**
     * A share's files to their places in the new sandbox's run dir: its log and pid file renamed (virtiofsd appends to
     * the log it opened, and holds the pid file's lock by descriptor), its socket linked. A Unix socket's listener is
     * reached through any name of its file, but the kernel's socket table ({@code /proc/net/unix}) keeps the name it was
     * bound to, and that table is how a listener is found (ChvClient's check before a restore, CHV would wait 60 s for
     * a socket without one): a second hard link to the bound name is found there by its file; a renamed one would not be.
     */
    private static void moveFiles(ShareSpec from, ShareSpec to) throws IOException {
        Files.createLink(to.socketPath(), from.socketPath());
        if (Files.exists(from.pidFile())) Files.move(from.pidFile(), to.pidFile(), StandardCopyOption.ATOMIC_MOVE);
        Files.move(from.logFile(), to.logFile(), StandardCopyOption.ATOMIC_MOVE);
    }

    /** The made layout's paths moved to the new sandbox's: what is under its dirs follows them, the rootfs stays. */
    private static ShareSpec relocated(ShareSpec spec, SandboxLayout from, SandboxLayout to) {
        return new ShareSpec(to.sandboxId(), spec.kind(), moved(spec.sharedDir(), from.sandboxDir(), to.sandboxDir()),
                moved(spec.socketPath(), from.runDir(), to.runDir()), moved(spec.logFile(), from.runDir(), to.runDir()), spec.options());
    }

    private static Path moved(Path path, Path fromDir, Path toDir) {
        return path.startsWith(fromDir) ? toDir.resolve(fromDir.relativize(path)) : path;
    }

    private SandboxLayout layoutFor(String token) {
        Path dir = root.resolve(token);
        return new SandboxLayout("clone-ahead-" + token, dir, dir.resolve("durable"), dir.resolve("system-info"),
                runRoot.resolve(token));
    }

    private static String newToken() {
        byte[] random = new byte[5];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    /** Kills what was made once it is made (or failed), and removes its dirs. Never throws. */
    private static void discard(Made dropped) {
        try {
            dropped.ready().join().kill();
        } catch (CompletionException e) {
            // its making failed: make() removed what it had made
        } catch (RuntimeException e) {
            LOG.log(WARNING, "stopping the virtiofsd of the clone made ahead for snapshot " + dropped.snapshotId() + " failed: "
                    + e.getMessage());
        }
        removeDirs(dropped.layout());
    }

    private static void removeDirs(SandboxLayout layout) {
        TreeRemoval.removeRecursively(layout.runDir());
        TreeRemoval.removeRecursively(layout.sandboxDir());
    }

    private static void emptyQuietly(Path dir) {
        try (Stream<Path> entries = Files.isDirectory(dir) ? Files.list(dir) : Stream.empty()) {
            entries.toList().forEach(TreeRemoval::removeRecursively);
        } catch (IOException e) {
            LOG.log(WARNING, "cannot empty " + dir + ": " + e.getMessage());
        }
    }
}
