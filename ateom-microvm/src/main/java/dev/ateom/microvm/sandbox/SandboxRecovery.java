package dev.ateom.microvm.sandbox;

import dev.ateom.chv.MemoryRestoreMode;
import dev.ateom.chv.ChvClient;
import dev.ateom.chv.ChvTimeouts;
import dev.ateom.chv.VmState;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.virtiofsd.ShareKind;
import dev.ateom.virtiofsd.ShareOptions;
import dev.ateom.virtiofsd.ShareProcessRecord;
import dev.ateom.virtiofsd.ShareSet;
import dev.ateom.virtiofsd.ShareSpec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Settles one persisted sandbox at daemon start (DESIGN.md: "records are reconciled with what is really
 * running"). What a crash in each state means:
 * <ul>
 *   <li>RUNNING: adopted when its CHV still answers vm.info with a running VM, else FAILED and cleaned;</li>
 *   <li>CREATING: FAILED and cleaned (nothing to return to);</li>
 *   <li>SUSPENDING: if the snapshot was committed before the crash, SUSPENDED on it; else the VM is lost:
 *       FAILED, with the durable dir kept on the host;</li>
 *   <li>RESUMING: the snapshot is intact, so SUSPENDED again (the resume can be retried);</li>
 *   <li>DELETING: the delete is finished (with the sandbox's snapshots, if the delete asked for them);</li>
 *   <li>SUSPENDED, FAILED: leftover processes (if any) are killed.</li>
 * </ul>
 */
final class SandboxRecovery {
    private static final System.Logger LOG = System.getLogger(SandboxRecovery.class.getName());
    private final SandboxManager manager;
    private final SandboxEntry entry;

    SandboxRecovery(SandboxManager manager, SandboxEntry entry) {
        this.manager = manager;
        this.entry = entry;
    }

    void run() {
        SandboxRecord record = entry.record();
        SandboxLayout layout = SandboxLayout.of(manager.config(), record.id());
        if (java.nio.file.Files.isDirectory(layout.sandboxDir())) manager.snapshots().removeInterruptedExtractions(layout.sandboxDir());
        switch (record.state()) {
            case RUNNING -> {
                if (!tryAdopt(record, layout)) {
                    cleanup(record, layout);
                    settle(record.failed("the VM was gone when the daemon restarted (its processes died with the previous daemon)"));
                }
            }
            case CREATING -> {
                cleanup(record, layout);
                settle(record.failed("the daemon stopped while creating the sandbox"));
            }
            case SUSPENDING -> {
                cleanup(record, layout);
                List<String> committed = manager.snapshots().unrecordedSnapshotsOf(record.id(), new HashSet<>(record.snapshotIds()))
                        .stream().filter(id -> isOfThisSandbox(record, id)).toList();
                if (!committed.isEmpty()) {
                    String snapshot = committed.getLast();
                    LOG.log(INFO, "suspend of " + record.id() + " had committed snapshot " + snapshot + " before the daemon stopped");
                    settle(record.withSnapshot(snapshot).withState(SandboxState.SUSPENDED).withRuntime(null));
                } else {
                    settle(record.failed("the daemon stopped during suspend before the snapshot was committed; the VM is lost, "
                            + "its durable data is intact in " + layout.durableDir()));
                }
            }
            case RESUMING -> {
                cleanup(record, layout);
                settle(record.withState(SandboxState.SUSPENDED).withRuntime(null));
            }
            case DELETING -> {
                cleanup(record, layout);
                TreeRemoval.removeRecursively(layout.runDir());
                if (SandboxManager.DELETE_WITH_SNAPSHOTS.equals(record.lastOperation())) {
                    record.snapshotIds().forEach(manager.snapshots()::deleteIfPresent);
                }
                manager.store().deleteAll(record.id());
                manager.forget(record.id());
                LOG.log(INFO, "finished deleting sandbox " + record.id());
            }
            case SUSPENDED, FAILED -> {
                if (record.runtime() != null) {
                    cleanup(record, layout);
                    settle(record.withRuntime(null));
                }
            }
        }
    }

    /** An earlier sandbox with the same id (deleted, its snapshots kept) had another uid: its snapshots are not this one's. */
    private boolean isOfThisSandbox(SandboxRecord record, String snapshotId) {
        try {
            return record.identity().uid().equals(manager.snapshots().open(snapshotId).snapshot().manifest().source().uid());
        } catch (RuntimeException e) {
            LOG.log(WARNING, "snapshot " + snapshotId + " cannot be read, so it is not taken as " + record.id() + "'s: " + e.getMessage());
            return false;
        }
    }

    private boolean tryAdopt(SandboxRecord record, SandboxLayout layout) {
        VmRuntime runtime = record.runtime();
        if (runtime == null || !ProcessLeftovers.isChvAlive(runtime)) return false;
        try (ChvClient client = new ChvClient(Path.of(runtime.apiSocket()), ChvTimeouts.all(Duration.ofSeconds(5)))) {
            VmState state = client.info().state();
            if (state != VmState.Running) {
                LOG.log(WARNING, "sandbox " + record.id() + " CHV answers but its VM is " + state + "; not adopting");
                return false;
            }
        } catch (RuntimeException e) {
            LOG.log(WARNING, "sandbox " + record.id() + " CHV does not answer: " + e.getMessage());
            return false;
        }
        SandboxLayout.EpochLayout el = layout.epoch(runtime.epoch());
        ShareOptions options = ShareOptions.DEFAULT.withDieWithDaemon(manager.config().childrenDieWithDaemon());
        List<ShareProcessRecord> records = new ArrayList<>();
        for (ShareRuntime share : runtime.shares()) {
            ShareKind kind = ShareKind.valueOf(share.kind());
            ShareSpec spec = ShareSpec.inRunDir(record.id(), kind, Path.of(share.sharedDir()), el.dir(), options);
            records.add(new ShareProcessRecord(spec, share.pid(), 0));
        }
        ShareSet shares;
        try {
            shares = ShareSet.adopt(manager.virtiofsd(), records);
        } catch (RuntimeException e) {
            LOG.log(WARNING, "sandbox " + record.id() + " virtiofsd cannot be adopted: " + e.getMessage());
            return false;
        }
        AutoCloseable sync = manager.systemInfo().startSync(layout, record.spec().systemInfoOrEmpty(), record.identity());
        // an adopted OnDemand VM still faults from its restore dir's memory-ranges, which the recovery keeps
        java.util.Optional<Path> onDemandSource = record.spec().restoreModeOrDefault() == MemoryRestoreMode.OnDemand
                ? java.util.Optional.of(layout.restoreDir(runtime.epoch()).resolve("memory-ranges")).filter(java.nio.file.Files::exists)
                : java.util.Optional.empty();
        entry.live(new LiveVm(runtime.epoch(), null, shares, sync, onDemandSource));
        LOG.log(INFO, "adopted running sandbox " + record.id() + " (cloud-hypervisor pid " + runtime.chvPid() + ")");
        return true;
    }

    private void cleanup(SandboxRecord record, SandboxLayout layout) {
        if (record.runtime() != null) ProcessLeftovers.kill(manager.virtiofsd(), record.runtime());
        // what was started but not yet recorded (a crash while CHV was starting) is found by its sockets
        ProcessLeftovers.killInRunDir(manager.virtiofsd(), record.id(), layout.runDir());
        TreeRemoval.removeRecursively(layout.runDir());
        TreeRemoval.removeRecursively(layout.restoreRoot());
    }

    private void settle(SandboxRecord settled) {
        // a sandbox that is not running has no processes or sockets: a runtime would show the dead ones' pids
        SandboxRecord updated = settled.state() == SandboxState.RUNNING ? settled : settled.withRuntime(null);
        manager.settle(entry, updated);
        LOG.log(INFO, "recovered sandbox " + updated.id() + " as " + updated.state()
                + (updated.failureReason() != null ? ": " + updated.failureReason() : ""));
    }
}
