package dev.ateom.microvm.sandbox;

import dev.ateom.chv.MemoryRestoreMode;
import dev.ateom.chv.ChvLaunch;
import dev.ateom.chv.ChvProcess;
import dev.ateom.chv.RestoreConfig;
import dev.ateom.chv.VmConfig;
import dev.ateom.microvm.HostTools;
import dev.ateom.microvm.config.DaemonConfig;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.microvm.timing.StepTimer;
import dev.ateom.microvm.vm.VmConfigFactory;
import dev.ateom.virtiofsd.ShareKind;
import dev.ateom.virtiofsd.ShareSet;
import dev.ateom.virtiofsd.ShareSpec;
import dev.ateom.virtiofsd.VirtiofsdLauncher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Brings a sandbox's VM up, by boot or by restore: fresh run dir for the epoch, the three virtiofsd, CHV, the
 * runtime persisted before CHV is asked anything (so a crash leaves findable processes), then vm.create/boot or
 * vm.restore/resume. Every process started registers its stop in the caller's {@link Rollback}.
 */
final class VmStarter {
    static final Duration STOP_GRACE = Duration.ofSeconds(5);
    /** CHV answers vmm.ping in milliseconds; a loaded host (or the JVM-based stand-in) may need far longer. */
    private static final Duration CHV_READY_TIMEOUT = Duration.ofSeconds(30);

    private final DaemonConfig config;
    private final SandboxStore store;
    private final VirtiofsdLauncher virtiofsd;
    private final SnapshotCatalog snapshots;
    private final HostTools tools;

    VmStarter(DaemonConfig config, SandboxStore store, VirtiofsdLauncher virtiofsd, SnapshotCatalog snapshots, HostTools tools) {
        this.config = config;
        this.store = store;
        this.virtiofsd = virtiofsd;
        this.snapshots = snapshots;
        this.tools = tools;
    }

    LiveVm boot(SandboxEntry entry, SandboxLayout layout, int epoch, StepTimer timer, Rollback rollback) {
        SandboxRecord record = entry.record();
        SandboxLayout.EpochLayout el = prepareEpoch(layout, epoch, rollback);
        ShareSet shares = startShares(record, layout, el, timer, rollback);
        ChvProcess chv = startChv(el, timer, rollback);
        VmConfig vmConfig = VmConfigFactory.forBoot(record.spec(), el, socketsOf(shares));
        saveRuntime(entry, el, epoch, chv, shares);
        timer.run("vmCreate", () -> chv.client().create(vmConfig));
        timer.run("vmBoot", () -> chv.client().boot());
        return new LiveVm(epoch, chv, shares, null, java.util.Optional.empty());
    }

    LiveVm restore(SandboxEntry entry, SandboxLayout layout, SnapshotCatalog.SnapshotHandle snapshot, int epoch,
                           StepTimer timer, Rollback rollback) {
        SandboxRecord record = entry.record();
        SandboxLayout.EpochLayout el = prepareEpoch(layout, epoch, rollback);
        ShareSet shares = startShares(record, layout, el, timer, rollback);
        // the earlier restore dirs went with the earlier VMs: the root holds only this one
        rollback.add("remove " + layout.restoreRoot(), () -> TreeRemoval.removeRecursively(layout.restoreRoot()));
        Path sourceDir = timer.step("rewrite", () -> snapshots.prepareRestore(snapshot, layout.restoreDir(epoch), socketsByTag(shares),
                el.vsockSocket(), el.consoleLog()));
        ChvProcess chv = startChv(el, timer, rollback);
        saveRuntime(entry, el, epoch, chv, shares);
        MemoryRestoreMode mode = record.spec().restoreModeOrDefault();
        RestoreConfig restore = RestoreConfig.fromDirectory(sourceDir, mode);
        timer.run("vmRestore", () -> chv.client().restore(restore));
        // from here the guest may write to the durable dir: it is no longer the snapshot's
        new DurableSyncMarker(layout.sandboxDir()).clear();
        timer.run("vmResume", () -> chv.client().resume());
        return new LiveVm(epoch, chv, shares, null, mode == MemoryRestoreMode.OnDemand
                ? java.util.Optional.of(sourceDir.resolve("memory-ranges")) : java.util.Optional.empty());
    }

    private SandboxLayout.EpochLayout prepareEpoch(SandboxLayout layout, int epoch, Rollback rollback) {
        SandboxLayout.EpochLayout el = layout.epoch(epoch);
        try {
            // earlier boots' dirs hold only logs by now: keep the run dir from growing with every resume
            if (Files.isDirectory(layout.runDir())) {
                try (var dirs = Files.list(layout.runDir())) {
                    dirs.filter(d -> !d.equals(el.dir())).forEach(TreeRemoval::removeRecursively);
                }
            }
            TreeRemoval.removeRecursively(el.dir());
            Files.createDirectories(el.dir());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create run dir " + el.dir(), e);
        }
        rollback.add("remove " + el.dir(), () -> TreeRemoval.removeRecursively(el.dir()));
        return el;
    }

    private ShareSet startShares(SandboxRecord record, SandboxLayout layout, SandboxLayout.EpochLayout el, StepTimer timer,
                                 Rollback rollback) {
        List<ShareSpec> specs = new ArrayList<>();
        var options = dev.ateom.virtiofsd.ShareOptions.DEFAULT.withDieWithDaemon(config.childrenDieWithDaemon());
        specs.add(ShareSpec.inRunDir(record.id(), ShareKind.ROOTFS, Path.of(record.spec().rootfs()), el.dir(), options));
        specs.add(ShareSpec.inRunDir(record.id(), ShareKind.DURABLE, layout.durableDir(), el.dir(), options));
        specs.add(ShareSpec.inRunDir(record.id(), ShareKind.SYSTEM_INFO, layout.systemInfoDir(), el.dir(), options));
        ShareSet shares = timer.step("virtiofsd", () -> ShareSet.start(virtiofsd, specs));
        rollback.add("stop virtiofsd", shares::stop);
        return shares;
    }

    private ChvProcess startChv(SandboxLayout.EpochLayout el, StepTimer timer, Rollback rollback) {
        ChvLaunch launch = new ChvLaunch(tools.hypervisor().resolved().orElseThrow(), el.apiSocket(), el.chvLog(), el.chvOutput(), 1,
                CHV_READY_TIMEOUT, Map.of()).withDieWithDaemon(config.childrenDieWithDaemon());
        ChvProcess chv = timer.step("chvStart", () -> ChvProcess.start(launch));
        rollback.add("stop cloud-hypervisor", () -> chv.stop(STOP_GRACE));
        return chv;
    }

    private void saveRuntime(SandboxEntry entry, SandboxLayout.EpochLayout el, int epoch, ChvProcess chv, ShareSet shares) {
        List<ShareRuntime> shareRuntimes = new ArrayList<>();
        shares.processes().forEach((kind, p) -> shareRuntimes.add(new ShareRuntime(kind.name(), kind.tag(), p.pid(),
                p.socketPath().toString(), p.spec().sharedDir().toString(), p.logFile().toString())));
        VmRuntime runtime = new VmRuntime(el.dir().getParent().toString(), epoch, chv.pid(), el.apiSocket().toString(),
                el.vsockSocket().toString(), el.consoleLog().toString(), el.chvLog().toString(), shareRuntimes);
        SandboxRecord updated = entry.record().withRuntime(runtime);
        store.save(updated);
        entry.record(updated);
    }

    private static Map<ShareKind, Path> socketsOf(ShareSet shares) {
        Map<ShareKind, Path> sockets = new EnumMap<>(ShareKind.class);
        shares.processes().forEach((kind, p) -> sockets.put(kind, p.socketPath()));
        return sockets;
    }

    private static Map<String, Path> socketsByTag(ShareSet shares) { return shares.socketsByTag(); }

}
