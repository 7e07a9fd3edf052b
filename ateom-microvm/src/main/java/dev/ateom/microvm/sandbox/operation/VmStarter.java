package dev.ateom.microvm.sandbox.operation;

import dev.ateom.chv.ChvLaunch;
import dev.ateom.chv.ChvProcess;
import dev.ateom.microvm.HostTools;
import dev.ateom.microvm.PrivateDirs;
import dev.ateom.microvm.config.DaemonConfig;
import dev.ateom.microvm.jail.PoolMemberJails;
import dev.ateom.microvm.jail.VmmJail;
import dev.ateom.microvm.jail.VmmJailer;
import dev.ateom.microvm.sandbox.NetworkRuntime;
import dev.ateom.microvm.sandbox.Rollback;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.ShareRuntime;
import dev.ateom.microvm.sandbox.SnapshotCatalog;
import dev.ateom.microvm.sandbox.SnapshotRestores;
import dev.ateom.microvm.sandbox.TreeRemoval;
import dev.ateom.microvm.sandbox.VmRuntime;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.microvm.vm.VmmPool;
import dev.ateom.virtiofsd.ShareKind;
import dev.ateom.virtiofsd.ShareOptions;
import dev.ateom.virtiofsd.ShareSet;
import dev.ateom.virtiofsd.ShareSetsAhead;
import dev.ateom.virtiofsd.ShareSpec;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static java.lang.System.Logger.Level.WARNING;

/**
 * Starts the parts of a sandbox's VM, each registering its undo in the caller's {@link Rollback} (the virtiofsd,
 * started on another thread, by the caller): a fresh run dir for the epoch, the three virtiofsd, the per-restore
 * source dir, CHV. In which order, side by side or not, and how they are timed is {@link BringUp}'s business.
 */
public final class VmStarter {
    private static final System.Logger LOG = System.getLogger(VmStarter.class.getName());
    /** CHV answers vmm.ping in milliseconds; a loaded host (or the JVM-based stand-in) may need far longer. */
    private static final Duration CHV_READY_TIMEOUT = Duration.ofSeconds(30);

    private final DaemonConfig config;
    private final SnapshotCatalog snapshots;
    private final HostTools tools;
    private final VmmPool pool;
    private final VmmJailer jailer;
    private final ShareSetsAhead sharesAhead;
    private final ClonesAhead clonesAhead;
    /** With the jail on: how a bring-up gets its jailed CHV. */
    private final Optional<JailedChvStart> jailedStart;

    public VmStarter(DaemonConfig config, SnapshotCatalog snapshots, HostTools tools, VmmPool pool, VmmJailer jailer,
            Optional<PoolMemberJails> memberJails, ShareSetsAhead sharesAhead, ClonesAhead clonesAhead) {
        this.pool = pool;
        this.clonesAhead = clonesAhead;
        this.jailer = jailer;
        this.sharesAhead = sharesAhead;
        this.config = config;
        this.snapshots = snapshots;
        this.tools = tools;
        this.jailedStart = memberJails.map(members -> new JailedChvStart(pool, jailer, members, config.childrenDieWithDaemon()));
    }

    /**
     * The starter with what it owns: the warm VMM pool (filled later, {@link #startPoolFilling}), the jails and the
     * virtiofsd started ahead, each sized by the options and registered in {@code registry}'s metrics.
     */
    public static VmStarter start(DaemonConfig config, SnapshotCatalog snapshots, HostTools tools, PrometheusRegistry registry) {
        VmmJailer jailer = VmmJailer.start(config.jail(), config.stateDir(), config.runDir(), tools.hypervisor().resolved());
        // with the jail on, each member starts in a jail of its own and gets its sandbox's files at the claim
        Optional<PoolMemberJails> memberJails = jailer.enabled()
                ? Optional.of(jailer.poolMembers(config.runDir(), config.sandboxesDir(), config.imageRoots())) : Optional.empty();
        VmmPool pool = VmmPool.start(config.runDir(), tools.hypervisor().resolved(), memberJails.<VmmPool.MemberJails>map(j -> j)
                .orElse(VmmPool.MemberJails.NONE), config.childrenDieWithDaemon() ? config.vmmPool() : 0, registry);
        GaugeWithCallback.builder().name("ateom_sandbox_cgroup_memory_bytes")
                .help("Memory a running sandbox's cgroups use now (its jailed cloud-hypervisor's and its virtiofsd's)").labelNames("sandbox")
                .callback(cb -> jailer.memoryUsage().forEach((id, bytes) -> cb.call(bytes, id))).register(registry);
        // like the pool: only processes that die with the daemon may be started for nobody yet (recovery finds no record of them)
        ShareSetsAhead sharesAhead = new ShareSetsAhead(config.childrenDieWithDaemon() ? config.virtiofsdAhead() : 0);
        ClonesAhead clonesAhead = new ClonesAhead(config.stateDir().resolve("clones-ahead"), config.runDir().resolve(".clones-ahead"),
                config.childrenDieWithDaemon() && !SpeedBaseline.active() ? config.cloneAhead() : 0);
        // what is made for a snapshot's next clone goes with the snapshot
        snapshots.onDelete(clonesAhead::discard);
        GaugeWithCallback.builder().name("ateom_clones_made_ahead")
                .help("Snapshots whose next clone is made ahead or being made (--clone-ahead)")
                .callback(cb -> cb.call(clonesAhead.size())).register(registry);
        return new VmStarter(config, snapshots, tools, pool, jailer, memberJails, sharesAhead, clonesAhead);
    }

    /** The warm pool starts filling (once the API answers and every tool is there). */
    public void startPoolFilling() { pool.startFilling(); }

    /** The pool's refill held back until a bring-up's VMM is handed over ({@link VmmPool#holdRefill}). */
    VmmPool.RefillHold holdPoolRefill() { return pool.holdRefill(); }

    /** The virtiofsd a suspend's teardown starts for the sandbox's next resume. */
    ShareSetsAhead sharesAhead() { return sharesAhead; }

    /** The next clones of recently cloned snapshots, made ahead. */
    ClonesAhead clonesAhead() { return clonesAhead; }

    /**
     * At the daemon's stop, after the suspends: the pool, what their teardowns started ahead, the clones made ahead, the
     * jails. Each goes even when one before it failed (the first failure is thrown after): the jails' cgroups must not
     * outlive a pool that could not stop.
     */
    public void close() {
        RuntimeException failure = null;
        for (Runnable close : List.<Runnable>of(pool::close, sharesAhead::close, clonesAhead::close, jailer::close)) {
            try {
                close.run();
            } catch (RuntimeException e) {
                if (failure == null) failure = e;
                else failure.addSuppressed(e);
            }
        }
        if (failure != null) throw failure;
    }

    /**
     * The epoch's run dir, empty; with {@code serving}, kept as it is: the virtiofsd started ahead for it serve there.
     * Earlier epochs' dirs go beside the bring-up ({@link #removeDeadEpochs}), so the run dir does not grow.
     */
    SandboxLayout.EpochLayout prepareEpoch(SandboxLayout layout, int epoch, boolean serving, Rollback rollback) {
        SandboxLayout.EpochLayout el = layout.epoch(epoch);
        try {
            if (!serving) TreeRemoval.removeRecursively(el.dir());
            PrivateDirs.ensure(layout.runDir());
            Files.createDirectories(el.dir());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create run dir " + el.dir(), e);
        }
        rollback.add("remove " + el.dir(), () -> TreeRemoval.removeRecursively(el.dir()));
        return el;
    }

    /**
     * Removes, on a thread of its own, the run dir's epoch dirs other than {@code el}'s and {@code retiring}'s (a VM
     * still being torn down, found by its sockets there until it is gone): the sockets, logs and pid files of epochs
     * whose processes are gone. Nothing needs them any more, so a failure is logged and fails nothing; the caller
     * waits for the removal before it answers, so the next bring-up never lists a run dir still being emptied.
     */
    CompletableFuture<Void> removeDeadEpochs(SandboxLayout layout, SandboxLayout.EpochLayout el, OptionalInt retiring) {
        Path kept = retiring.isPresent() ? layout.epoch(retiring.getAsInt()).dir() : null;
        CompletableFuture<Void> removed = new CompletableFuture<>();
        Thread.ofVirtual().name("dead-epochs-" + layout.sandboxId()).start(() -> {
            try (var dirs = Files.list(layout.runDir())) {
                dirs.filter(d -> !d.equals(el.dir()) && !d.equals(kept)).forEach(TreeRemoval::removeRecursively);
            } catch (IOException | RuntimeException e) {
                LOG.log(WARNING, "cannot remove the dead epoch dirs of sandbox " + layout.sandboxId() + " (the next bring-up tries again): "
                        + e.getMessage());
            } finally {
                removed.complete(null);
            }
        });
        return removed;
    }

    /** The epoch's three shares: rootfs, durable and system-info, sockets and logs in its run dir. */
    List<ShareSpec> shareSpecs(SandboxRecord record, SandboxLayout layout, SandboxLayout.EpochLayout el) {
        return shareSpecs(record.spec().rootfs(), layout, el);
    }

    /** The shares of a sandbox with {@code rootfs} laid out as {@code layout} says (its id is the layout's). */
    List<ShareSpec> shareSpecs(String rootfs, SandboxLayout layout, SandboxLayout.EpochLayout el) {
        ShareOptions options = ShareOptions.DEFAULT.withDieWithDaemon(config.childrenDieWithDaemon());
        String id = layout.sandboxId();
        return List.of(ShareSpec.inRunDir(id, ShareKind.ROOTFS, Path.of(rootfs), el.dir(), options),
                ShareSpec.inRunDir(id, ShareKind.DURABLE, layout.durableDir(), el.dir(), options),
                ShareSpec.inRunDir(id, ShareKind.SYSTEM_INFO, layout.systemInfoDir(), el.dir(), options));
    }

    /**
     * What a suspend's teardown started ahead for this epoch ({@link ShareSetsAhead#take}), without waiting: the
     * claim's {@link ShareSetsAhead.Claim#await} gives the shares if they are exactly {@code specs} and all still run;
     * otherwise nothing, and the caller starts its own.
     */
    ShareSetsAhead.Claim takeStartedAhead(String sandboxId, List<ShareSpec> specs) {
        return sharesAhead.take(sandboxId, specs);
    }

    /** Starts the shares together; a share that fails stops the others before this throws. */
    ShareSet startShares(List<ShareSpec> specs) { return ShareSet.start(tools.virtiofsdLauncher(), specs); }

    /** The result of work started beside (the shares once started), or that work's own failure. */
    static <T> T awaitStarted(CompletableFuture<T> starting) {
        try {
            return starting.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) throw cause;
            throw e;
        }
    }

    /** The rollback of a start that may still run: waits for it, then kills what it started (a failed start stopped its own). */
    static void stopOnceStarted(CompletableFuture<ShareSet> starting) {
        ShareSet shares;
        try {
            shares = starting.join();
        } catch (CompletionException | CancellationException e) {
            return;
        }
        shares.kill();
    }

    /** The socket each share's tag is served on, known before the processes start. */
    static Map<String, Path> socketsByTag(List<ShareSpec> specs) {
        Map<String, Path> sockets = new LinkedHashMap<>();
        specs.forEach(spec -> sockets.put(spec.kind().tag(), spec.socketPath()));
        return sockets;
    }

    /**
     * CHV's restore source for this epoch, made empty: it is handed to the VMM (bound into its jail) while
     * {@link #fillRestoreDir} fills it, as CHV reads it only at vm.restore.
     */
    Path createRestoreDir(SandboxLayout layout, int epoch, Rollback rollback) {
        // the earlier restore dirs went with the earlier VMs: the root holds only this one
        rollback.add("remove " + layout.restoreRoot(), () -> TreeRemoval.removeRecursively(layout.restoreRoot()));
        return SnapshotRestores.createRestoreDir(layout.restoreDir(epoch));
    }

    /** The restore dir filled: the snapshot's config rewritten for these sockets, state and memory linked; readable by the VMM. */
    void fillRestoreDir(SnapshotCatalog.SnapshotHandle snapshot, Path restoreDir, SandboxLayout.EpochLayout el, Map<String, Path> socketsByTag) {
        SnapshotRestores.fillRestore(snapshot, restoreDir, socketsByTag, el.vsockSocket(), el.consoleLog());
        // the jail's hand-over of the dir found it empty: what is in it now is made readable by the VMM's uid
        if (jailer.enabled()) jailer.filledAfterHandOver(restoreDir);
    }

    /** The jails of this daemon's VMMs (none when {@code --jail off}). */
    public VmmJailer jailer() { return jailer; }

    /**
     * A warm CHV from the pool moved into the epoch's dir, or else one started now; with the jail on, {@link JailedChvStart}'s.
     */
    StartedChv startChv(SandboxRecord record, SandboxLayout layout, SandboxLayout.EpochLayout el, int epoch, Optional<Path> restoreDir,
                        Rollback rollback) {
        Path binary = tools.hypervisor().resolved().orElseThrow();
        ChvLaunch launch = new ChvLaunch(binary, el.apiSocket(), el.chvLog(), el.chvOutput(), 1, CHV_READY_TIMEOUT, Map.of())
                .withDieWithDaemon(config.childrenDieWithDaemon());
        if (!jailer.enabled()) {
            ChvProcess chv = pool.claim(el).orElseGet(() -> ChvProcess.start(launch));
            // a failed bring-up discards the VM: nothing in it matters, so SIGKILL, as in Teardown
            rollback.add("kill cloud-hypervisor", chv::kill);
            return StartedChv.ready(chv);
        }
        return jailedStart.orElseThrow().start(record, layout, el, epoch, restoreDir, launch, rollback);
    }

    /**
     * A jailed VMM's virtiofsd: in a cgroup of their own (now, unless that was done when they were started ahead), their
     * sockets handed to its uid.
     *
     * @return whether the VMM is jailed (false: nothing to do)
     */
    boolean jailShares(SandboxRecord record, SandboxLayout layout, int epoch, ShareSet shares) {
        Optional<VmmJail> jail = jailer.jailOf(record.id(), epoch);
        if (jail.isEmpty()) return false;
        jailer.joinShares(jail.get(), shares, VmmJailer.sharesCgroupName(layout.runName(), epoch), record.spec().vcpusOrDefault());
        return true;
    }

    /** What a restarted daemon needs to find (and adopt or kill) these processes. */
    VmRuntime runtimeOf(String sandboxId, SandboxLayout.EpochLayout el, int epoch, ChvProcess chv, ShareSet shares, NetworkRuntime network) {
        VmRuntime runtime = runtimeOf(el, epoch, chv, shares, network);
        return jailer.jailOf(sandboxId, epoch).map(jail -> runtime.withJail(JailRuntimes.of(jail, chv.pid()))).orElse(runtime);
    }

    static VmRuntime runtimeOf(SandboxLayout.EpochLayout el, int epoch, ChvProcess chv, ShareSet shares, NetworkRuntime network) {
        List<ShareRuntime> shareRuntimes = new ArrayList<>();
        shares.processes().forEach((kind, p) -> shareRuntimes.add(new ShareRuntime(kind.name(), kind.tag(), p.pid(),
                p.socketPath().toString(), p.spec().sharedDir().toString(), p.logFile().toString())));
        return new VmRuntime(el.dir().getParent().toString(), epoch, chv.pid(), el.apiSocket().toString(),
                el.vsockSocket().toString(), el.consoleLog().toString(), el.chvLog().toString(), shareRuntimes, network, null);
    }
}
