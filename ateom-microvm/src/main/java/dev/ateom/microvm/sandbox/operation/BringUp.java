package dev.ateom.microvm.sandbox.operation;

import dev.ateom.chv.ChvProcess;
import dev.ateom.chv.MemoryRestoreMode;
import dev.ateom.chv.NetConfig;
import dev.ateom.chv.RestoreConfig;
import dev.ateom.chv.RestoredNetConfig;
import dev.ateom.chv.VmConfig;
import dev.ateom.microvm.sandbox.ReadinessSpec;
import dev.ateom.microvm.sandbox.Rollback;
import dev.ateom.microvm.sandbox.SandboxNetworks;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.sandbox.SandboxStore.Durability;
import dev.ateom.microvm.timing.StepTimer;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.microvm.vm.VmConfigFactory;
import dev.ateom.microvm.vm.VmmPool;
import dev.ateom.network.GuestNetwork;
import dev.ateom.network.Slot;
import dev.ateom.virtiofsd.ShareKind;
import dev.ateom.virtiofsd.ShareSet;
import dev.ateom.virtiofsd.ShareSetsAhead;
import dev.ateom.virtiofsd.ShareSpec;
import dev.ateom.virtiofsd.VirtiofsdException;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

import static java.lang.System.Logger.Level.WARNING;

/**
 * Brings a sandbox's VM up, the one sequence create, clone and resume share: the caller's system-info step first, on
 * a thread of its own, then the epoch run dir (dead epochs' dirs removed beside), the three virtiofsd started beside,
 * (network slot), (restore dir, made empty) and CHV (a claim from the warm pool, whose hand-over runs
 * beside), (the restore dir filled),
 * (the sandbox's lease, taken beside all that and awaited here when leases are held while running),
 * vm.create, (vm.add-net with the slot's TAP) and vm.boot or vm.restore (with the TAP as the snapshot's NIC) and
 * vm.resume, the runtime persisted beside vm.create / vm.restore and before the guest runs, then readiness, the clock
 * of a restored guest and the
 * system-info sync. The order of the steps, and which could run side by side, is decided here alone; every
 * process started registers its stop in the caller's {@link Rollback}. The warm pool's refill waits until the VMM is
 * handed over.
 */
final class BringUp {
    private static final System.Logger LOG = System.getLogger(BringUp.class.getName());
    /** The id of the guest's NIC in CHV's config: a restore names it in {@code net_fds}. */
    static final String NIC_ID = "net0";
    /** How long a failed VMM call waits for a share's exit to explain it (see {@link #namingFailedShares}). */
    private static final Duration SHARE_EXIT_GRACE = Duration.ofMillis(200);
    /** The step that saves the record with the runtime, beside vm.create / vm.restore. */
    static final String RUNTIME_SAVE = "runtimeSave";
    private final OperationContext context;

    BringUp(OperationContext context) { this.context = context; }

    /**
     * @param stateOnRefusal the state the sandbox is in if the bring-up is refused before it starts (no network free)
     * @param systemInfo     the caller's system-info work (create: the first write; resume and clone: regeneration), the
     *                       step {@code systemInfo}, run first on a thread of its own beside the epoch dir, virtiofsd,
     *                       the restore dir and CHV, awaited before the VM is created or restored
     * @param madeAhead      the shares a new sandbox's preparation took over, made ahead for it (a clone's:
     *                       ClonesAhead), or {@link ShareSetsAhead.Claim#NONE}
     */
    void run(SandboxEntry entry, VmSource source, int epoch, StepTimer timer, Rollback rollback, SandboxState stateOnRefusal,
             Runnable systemInfo, ShareSetsAhead.Claim madeAhead) {
        // the warm pool's refill waits until this bring-up's VMM is handed over (or the bring-up failed before that)
        try (VmmPool.RefillHold refillHeld = context.vms().holdPoolRefill()) {
            bringUp(entry, source, epoch, timer, rollback, stateOnRefusal, systemInfo, madeAhead, refillHeld);
        }
    }

    private void bringUp(SandboxEntry entry, VmSource source, int epoch, StepTimer timer, Rollback rollback, SandboxState stateOnRefusal,
                         Runnable systemInfo, ShareSetsAhead.Claim madeAhead, VmmPool.RefillHold refillHeld) {
        SandboxRecord record = entry.record();
        SandboxLayout layout = context.layout(record.id());
        VmStarter vms = context.vms();
        // the epoch dir of a VM still being torn down stays until the next bring-up: a restarted daemon finds what may
        // still run of it by the sockets named there (ProcessLeftovers.killInRunDir) once the record names this epoch
        OptionalInt retiring = entry.vmGonePending() && record.runtime() != null ? OptionalInt.of(record.runtime().epoch()) : OptionalInt.empty();
        // system-info first: the longest of the steps before vm.restore that need no other. It is safe this early: it
        // writes inside the share's root, which stays the same dir, and no guest reads it before the VM runs (the
        // previous VM's sync stopped before its pause). A restore must wait for it: virtiofsd finds the guest's
        // files by their paths then (--migration-mode=find-paths), which must lead to the new content. A failure
        // after this waits for it before anything is rolled back.
        CompletableFuture<Object> systemInfoDone = timer.stepBeside("systemInfo", () -> {
            systemInfo.run();
            return null;
        });
        rollback.add("await systemInfo", () -> awaitQuietly(systemInfoDone));
        // a resume's virtiofsd may serve already, or still be starting: started ahead by its suspend's teardown, in this
        // epoch's dir. Taken now, waited for beside the rest (a resume right after its suspend waits for their start). A
        // clone's may have been made ahead and moved into its dirs; either is used only if exactly these shares
        List<ShareSpec> shareSpecs = vms.shareSpecs(record, layout, layout.epoch(epoch));
        ShareSetsAhead.Claim ahead = madeAhead != ShareSetsAhead.Claim.NONE ? madeAhead.requiring(shareSpecs)
                : source instanceof VmSource.Restore ? vms.takeStartedAhead(record.id(), shareSpecs) : ShareSetsAhead.Claim.NONE;
        SandboxLayout.EpochLayout el;
        try {
            // while what was started ahead may hold this epoch's socket paths, its dir stays
            el = vms.prepareEpoch(layout, epoch, ahead.holdsPaths(), rollback);
        } catch (RuntimeException e) {
            ahead.await().ifPresent(ShareSet::kill);
            throw e;
        }
        CompletableFuture<Void> deadEpochsRemoved = vms.removeDeadEpochs(layout, el, retiring);
        rollback.add("await the removal of dead epoch dirs", () -> awaitQuietly(deadEpochsRemoved));
        // virtiofsd's own start is the longest step before vm.create / vm.restore: the three start on a thread of
        // their own while the rest is prepared; their stop is in the rollback from here, waiting for the start if need be
        Supplier<ShareSet> claimOrStart = () -> {
            long claimStart = System.nanoTime();
            Optional<ShareSet> claimed = ahead.await();
            // the wait for virtiofsd started ahead (their start still running, right after the suspend) is a span
            if (claimed.isPresent()) timer.span("virtiofsdAhead", claimStart, System.nanoTime());
            return claimed.orElseGet(() -> vms.startShares(shareSpecs));
        };
        // a set that serves already is taken here: a thread of its own would wait for a carrier thread while this one,
        // system-info's and the hand-over's run (1-3 ms on this 2-core host), and the bring-up would wait for it
        CompletableFuture<ShareSet> starting;
        if (ahead.ready()) {
            try {
                starting = CompletableFuture.completedFuture(timer.step("virtiofsd", claimOrStart));
            } catch (RuntimeException e) {
                // failed before the take (the step's own start, a fail point): the set started ahead goes; one the take
                // found unfit is gone already, and a second await finds it so
                ahead.await().ifPresent(ShareSet::kill);
                throw e;
            }
        } else {
            starting = timer.stepBeside("virtiofsd", claimOrStart);
        }
        rollback.add("stop virtiofsd", () -> VmStarter.stopOnceStarted(starting));
        Slot slot = null;
        if (record.spec().hasNetwork()) {
            // the old slot must be back first: its host ports are the ones the spec asks for again
            awaitPreviousTeardown(entry, timer);
            slot = timer.step("network", () -> acquireSlot(record, stateOnRefusal, rollback));
        }
        // Nothing below shares a resource with the previous VM still being torn down: a new epoch dir and sockets, its
        // own restore dir (the teardown removes only its own, and the root only while no resume has begun), a CHV of
        // its own, with the jail a jail of its own (uid, cgroup, root and outbox: the teardown releases only its
        // epoch's). So the resume goes on; the old processes stay findable by their epoch dir (kept above) until gone.
        if (SpeedBaseline.active()) awaitPreviousTeardown(entry, timer);
        // the restore dir is made empty before the CHV claim and filled after it: a jailed VMM's hand-over (its files
        // bound into its jail, 1-3 ms) runs beside the fill, as CHV reads the dir only at vm.restore
        Optional<Path> restoreDir = source instanceof VmSource.Restore ? Optional.of(vms.createRestoreDir(layout, epoch, rollback)) : Optional.empty();
        StartedChv started = timer.step("chvStart", () -> vms.startChv(record, layout, el, epoch, restoreDir, rollback));
        if (source instanceof VmSource.Restore restore) {
            timer.run("rewrite", () -> vms.fillRestoreDir(restore.snapshot(), restoreDir.orElseThrow(), el, VmStarter.socketsByTag(shareSpecs)));
        }
        ShareSet startedShares = VmStarter.awaitStarted(starting);
        // a warm jailed VMM's hand-over ran beside virtiofsd's start; its jail is the sandbox's once it is done
        ChvProcess chv = started.await(timer);
        refillHeld.close();
        ShareSet shares = stillServing(record, startedShares, shareSpecs, timer, rollback);
        // with the jail: the shares' sockets handed to the VMM's uid, and the shares moved into their own cgroup unless that
        // was done when they were started ahead (a move waits for an RCU grace period in the kernel: 8-21 ms here)
        long jailing = System.nanoTime();
        if (vms.jailShares(record, layout, epoch, shares)) timer.span("jailShares", jailing, System.nanoTime());
        // the last moment before the VM is created: the lease taken beside everything above must be held by now
        LeaseClaim lease = entry.leaseClaim();
        if (lease.enforced()) timer.run("lease", lease::await);
        SandboxRecord withRuntime = withSlot(entry.record(), slot).withRuntime(vms.runtimeOf(record.id(), el, epoch, chv, shares,
                slot == null ? null : SandboxNetworks.runtimeOf(slot)).restoredFrom(source instanceof VmSource.Restore restored
                        ? restored.snapshot().id() : null));
        Runnable beforeGuestRuns = saveRuntime(entry, withRuntime, layout, restoreDir.isPresent(), timer, rollback);
        VmStarter.awaitStarted(systemInfoDone);
        LiveVm live = restoreDir.isPresent() ? restore(record, restoreDir.get(), chv, shares, slot, epoch, timer, beforeGuestRuns)
                : boot(record, el, chv, shares, slot, epoch, timer, beforeGuestRuns);
        entry.live(live);
        awaitReady(record, el, timer, restoreDir.isPresent());
        entry.live(live.withSync(timer.step("sync", () ->
                context.systemInfo().startSync(layout, record.spec().systemInfoOrEmpty(), record.identity()))));
        deadEpochsRemoved.join();
    }

    /**
     * The shares, unless one has exited since its start or its claim (a set started ahead is checked when it is taken,
     * then waits beside the CHV claim): such a crash before any VM connected is no reason to fail the bring-up, so the
     * set is killed and started again, once, on the same paths. Later than this the VM's connection finds it out.
     */
    private ShareSet stillServing(SandboxRecord record, ShareSet shares, List<ShareSpec> specs, StepTimer timer, Rollback rollback) {
        List<ShareKind> exited = shares.exited();
        if (exited.isEmpty()) return shares;
        LOG.log(WARNING, "sandbox " + record.id() + ": virtiofsd " + exited + " exited before the VM connected; starting the shares again");
        shares.kill();
        ShareSet again = timer.step("virtiofsdAgain", () -> context.vms().startShares(specs));
        rollback.add("stop the virtiofsd started again", again::kill);
        return again;
    }

    /**
     * A resume may start while its suspend's teardown still kills the previous VM (SandboxEntry): only a network slot
     * (whose host ports the old slot still holds) waits for it. The wait is a span in the timings when there was one: it
     * is no step (it cannot fail, and is no crash point of its own).
     */
    private static void awaitPreviousTeardown(SandboxEntry entry, StepTimer timer) {
        if (!entry.vmGonePending()) return;
        long start = System.nanoTime();
        entry.awaitVmGone();
        timer.span("previousTeardown", start, System.nanoTime());
    }

    private static void awaitQuietly(CompletableFuture<?> work) {
        try {
            work.join();
        } catch (CompletionException | CancellationException e) {
            // its failure is the operation's, reported by the caller
        }
    }

    /** A slot with the sandbox's policy, released by the rollback after everything started later has stopped. */
    private Slot acquireSlot(SandboxRecord record, SandboxState stateOnRefusal, Rollback rollback) {
        Slot slot = context.networks().acquire(record, stateOnRefusal);
        rollback.add("release network slot " + slot.name(), () -> context.networks().release(slot));
        return slot;
    }

    /** The record with the host ports the slot published written into the spec, so the next resume asks for them again. */
    private static SandboxRecord withSlot(SandboxRecord record, Slot slot) {
        if (slot == null || slot.publishedPorts().isEmpty()) return record;
        return record.withSpec(record.spec().withNetwork(record.spec().network().withHostPorts(SandboxNetworks.portsOf(slot))));
    }

    /**
     * The one fsynced save of the bring-up, the record with the runtime (docs/decisions.md, "Resume and clone at the
     * hypervisor's speed"): on a thread of its own beside vm.create / vm.restore, which run no guest, and awaited
     * before vm.boot / vm.resume, which do. A restore's durable dir stops being the snapshot's once the guest runs: its
     * marker is removed first (no fsync needed: a marker is trusted only in the boot that wrote it). Until
     * the save is done a crash leaves the record CREATING or RESUMING, whose recovery kills what runs in the run dir
     * (found by its sockets) as it would with the runtime recorded. A failure waits for the save before any rollback.
     *
     * @return what must run right before the guest does: the wait for the save (the baseline: the marker's removal)
     */
    private Runnable saveRuntime(SandboxEntry entry, SandboxRecord withRuntime, SandboxLayout layout, boolean restoring,
                                 StepTimer timer, Rollback rollback) {
        DurableSyncMarker marker = new DurableSyncMarker(layout.sandboxDir());
        if (SpeedBaseline.active()) {
            timer.account(ResumeOperation.RECORDS, () -> context.transitions().apply(entry, withRuntime, Durability.SYNCED));
            return restoring ? marker::clear : () -> { };
        }
        CompletableFuture<Object> saving = timer.stepBeside(RUNTIME_SAVE, () -> {
            if (restoring) marker.clear();
            context.transitions().apply(entry, withRuntime, Durability.SYNCED);
            return null;
        });
        rollback.add("await the save of the runtime", () -> awaitQuietly(saving));
        return () -> {
            boolean waits = !saving.isDone();
            long start = System.nanoTime();
            VmStarter.awaitStarted(saving);
            if (waits) timer.span(RUNTIME_SAVE + "Wait", start, System.nanoTime());
        };
    }

    private static LiveVm boot(SandboxRecord record, SandboxLayout.EpochLayout el, ChvProcess chv, ShareSet shares, Slot slot,
                               int epoch, StepTimer timer, Runnable beforeGuestRuns) {
        VmConfig vmConfig = VmConfigFactory.forBoot(record.spec(), el, socketsOf(shares));
        timer.run("vmCreate", () -> namingFailedShares(shares, () -> chv.client().create(vmConfig)));
        // CHV takes descriptors only with vm.add-net (docs/decisions.md): the NIC joins the created VM before it boots
        if (slot != null) {
            timer.run("vmAddNet", () -> chv.client().addNet(NetConfig.onTapDescriptor(NIC_ID, GuestNetwork.GUEST_MAC.toString()),
                    List.of(slot.tapFd())));
        }
        beforeGuestRuns.run();
        timer.run("vmBoot", () -> namingFailedShares(shares, () -> chv.client().boot()));
        return new LiveVm(epoch, chv, shares, null, Optional.empty(), slot);
    }

    private static LiveVm restore(SandboxRecord record, Path sourceDir, ChvProcess chv, ShareSet shares,
                                  Slot slot, int epoch, StepTimer timer, Runnable beforeGuestRuns) {
        MemoryRestoreMode mode = record.spec().restoreModeOrDefault();
        RestoreConfig restore = RestoreConfig.fromDirectory(sourceDir, mode);
        // the snapshot's NIC gets this slot's TAP; the guest keeps its MAC, address and ARP cache, valid in every slot
        timer.run("vmRestore", () -> namingFailedShares(shares, () -> {
            if (slot == null) chv.client().restore(restore);
            else chv.client().restore(restore.withNetFds(List.of(new RestoredNetConfig(NIC_ID, 1))), List.of(slot.tapFd()));
        }));
        // from here the guest may write to the durable dir: it is no longer the snapshot's
        beforeGuestRuns.run();
        timer.run("vmResume", () -> chv.client().resume());
        return new LiveVm(epoch, chv, shares, null, mode == MemoryRestoreMode.OnDemand
                ? Optional.of(sourceDir.resolve("memory-ranges")) : Optional.empty(), slot);
    }

    /**
     * Runs a VMM call that connects to the shares; if it fails while a share cannot serve (it exited, or never finished
     * its set-up after listening: a virtiofsd start returns at its listen), the failure names the share, how it ended
     * and its log's tail, with the VMM's error as the cause: the VMM's own error names a socket at best.
     */
    private static void namingFailedShares(ShareSet shares, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            Map<ShareKind, String> failed = shares.failures(SHARE_EXIT_GRACE);
            if (failed.isEmpty()) throw e;
            // the hypervisor's error follows as the cause (a problem's detail lists the cause chain)
            VirtiofsdException named = new VirtiofsdException(String.join("; ", failed.values())
                    + ", so the hypervisor's call failed", e);
            LOG.log(WARNING, named.getMessage());
            throw named;
        }
    }

    private void awaitReady(SandboxRecord record, SandboxLayout.EpochLayout el, StepTimer timer, boolean afterRestore) {
        ReadinessSpec readiness = record.spec().readinessOrDefault();
        if (!readiness.usesProbe()) return;
        timer.run("ready", () -> context.probe().awaitReady(el.vsockSocket(), readiness.port(),
                Duration.ofSeconds(readiness.timeoutOrDefault())));
        // A restored guest's clock is behind by the time it spent saved.
        if (afterRestore) timer.run("clock", () -> context.probe().setClock(el.vsockSocket(), readiness.port(), Instant.now()));
    }

    private static Map<ShareKind, Path> socketsOf(ShareSet shares) {
        Map<ShareKind, Path> sockets = new EnumMap<>(ShareKind.class);
        shares.processes().forEach((kind, p) -> sockets.put(kind, p.socketPath()));
        return sockets;
    }
}
