package dev.ateom.microvm.sandbox.operation;

import dev.ateom.chv.ChvProcess;
import dev.ateom.chv.MemoryRestoreMode;
import dev.ateom.chv.RestoreConfig;
import dev.ateom.chv.VmConfig;
import dev.ateom.microvm.sandbox.ReadinessSpec;
import dev.ateom.microvm.sandbox.Rollback;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.timing.StepTimer;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.microvm.vm.VmConfigFactory;
import dev.ateom.virtiofsd.ShareKind;
import dev.ateom.virtiofsd.ShareSet;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * Brings a sandbox's VM up, the one sequence create, clone and resume share: epoch run dir, the three virtiofsd,
 * (restore dir), CHV, the runtime persisted before CHV is asked anything (so a crash leaves findable processes),
 * vm.create and vm.boot or vm.restore and vm.resume, then readiness, the clock of a restored guest and the
 * system-info sync. The order of the steps, and which could run side by side, is decided here alone; every
 * process started registers its stop in the caller's {@link Rollback}.
 */
final class BringUp {
    private final OperationContext context;

    BringUp(OperationContext context) { this.context = context; }

    void run(SandboxEntry entry, VmSource source, int epoch, StepTimer timer, Rollback rollback) {
        SandboxRecord record = entry.record();
        SandboxLayout layout = context.layout(record.id());
        VmStarter vms = context.vms();
        SandboxLayout.EpochLayout el = vms.prepareEpoch(layout, epoch, rollback);
        ShareSet shares = timer.step("virtiofsd", () -> vms.startShares(record, layout, el, rollback));
        Optional<Path> restoreDir = source instanceof VmSource.Restore restore
                ? Optional.of(timer.step("rewrite", () -> vms.prepareRestoreDir(restore.snapshot(), layout, epoch, el, shares, rollback)))
                : Optional.empty();
        ChvProcess chv = timer.step("chvStart", () -> vms.startChv(el, rollback));
        context.transitions().apply(entry, entry.record().withRuntime(VmStarter.runtimeOf(el, epoch, chv, shares)));
        LiveVm live = restoreDir.isPresent() ? restore(record, layout, restoreDir.get(), chv, shares, epoch, timer)
                : boot(record, el, chv, shares, epoch, timer);
        entry.live(live);
        awaitReady(record, el, timer, restoreDir.isPresent());
        entry.live(live.withSync(timer.step("sync", () ->
                context.systemInfo().startSync(layout, record.spec().systemInfoOrEmpty(), record.identity()))));
    }

    private static LiveVm boot(SandboxRecord record, SandboxLayout.EpochLayout el, ChvProcess chv, ShareSet shares, int epoch,
                               StepTimer timer) {
        VmConfig vmConfig = VmConfigFactory.forBoot(record.spec(), el, socketsOf(shares));
        timer.run("vmCreate", () -> chv.client().create(vmConfig));
        timer.run("vmBoot", () -> chv.client().boot());
        return new LiveVm(epoch, chv, shares, null, Optional.empty());
    }

    private static LiveVm restore(SandboxRecord record, SandboxLayout layout, Path sourceDir, ChvProcess chv, ShareSet shares,
                                  int epoch, StepTimer timer) {
        MemoryRestoreMode mode = record.spec().restoreModeOrDefault();
        timer.run("vmRestore", () -> chv.client().restore(RestoreConfig.fromDirectory(sourceDir, mode)));
        // from here the guest may write to the durable dir: it is no longer the snapshot's
        new DurableSyncMarker(layout.sandboxDir()).clear();
        timer.run("vmResume", () -> chv.client().resume());
        return new LiveVm(epoch, chv, shares, null, mode == MemoryRestoreMode.OnDemand
                ? Optional.of(sourceDir.resolve("memory-ranges")) : Optional.empty());
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
