package dev.ateom.microvm.sandbox.operation;

import dev.ateom.chv.ChvClient;
import dev.ateom.chv.ChvTimeouts;
import dev.ateom.chv.MemoryRestoreMode;
import dev.ateom.chv.VmState;
import dev.ateom.microvm.sandbox.JailRuntime;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.sandbox.ShareRuntime;
import dev.ateom.microvm.sandbox.SnapshotRestores;
import dev.ateom.microvm.sandbox.TreeRemoval;
import dev.ateom.microvm.sandbox.VmRuntime;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.network.Slot;
import dev.ateom.virtiofsd.ShareKind;
import dev.ateom.virtiofsd.ShareOptions;
import dev.ateom.virtiofsd.ShareProcessRecord;
import dev.ateom.virtiofsd.ShareSet;
import dev.ateom.virtiofsd.ShareSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Settles one persisted sandbox at daemon start (docs/DESIGN.md: "records are reconciled with what is really
 * running"). What a crash in each state means:
 * <ul>
 *   <li>RUNNING: adopted when its CHV still answers vm.info with a running VM (and its network slot, if any, can be
 *       taken back), else FAILED and cleaned; a VM a checkpoint left paused is resumed, and a snapshot that
 *       checkpoint committed is recorded;</li>
 *   <li>CREATING: FAILED and cleaned (nothing to return to);</li>
 *   <li>SUSPENDING: if the snapshot was committed before the crash, SUSPENDED on it; else the VM is lost:
 *       FAILED, with the durable dir kept on the host;</li>
 *   <li>RESUMING: the snapshot is intact, so SUSPENDED again (the resume can be retried);</li>
 *   <li>DELETING: the delete is finished (with the sandbox's snapshots, if the delete asked for them);</li>
 *   <li>SUSPENDED, FAILED: leftover processes (if any) are killed.</li>
 * </ul>
 */
public final class Recovery {
    private static final System.Logger LOG = System.getLogger(Recovery.class.getName());
    private final OperationContext context;

    public Recovery(OperationContext context) { this.context = context; }

    /** Settles the entry's sandbox; false when it no longer exists (an interrupted delete was finished). */
    public boolean run(SandboxEntry entry) {
        SandboxRecord record = entry.record();
        SandboxLayout layout = context.layout(record.id());
        if (Files.isDirectory(layout.sandboxDir())) SnapshotRestores.removeInterruptedExtractions(layout.sandboxDir());
        switch (record.state()) {
            case RUNNING -> {
                if (record.lastOperation() == Operation.CHECKPOINT) recordCheckpoint(entry, record);
                if (!tryAdopt(entry, layout)) {
                    cleanup(record, layout);
                    // the entry's record: it holds the snapshot an interrupted checkpoint committed
                    settle(entry, entry.record().failed("the VM was gone when the daemon restarted (its processes died with the previous daemon)"));
                }
            }
            case CREATING -> {
                cleanup(record, layout);
                settle(entry, record.failed("the daemon stopped while creating the sandbox"));
            }
            case SUSPENDING -> {
                cleanup(record, layout);
                settleSuspending(entry, record, layout);
            }
            case RESUMING -> {
                cleanup(record, layout);
                settle(entry, record.withState(SandboxState.SUSPENDED));
            }
            case DELETING -> {
                cleanup(record, layout);
                TreeRemoval.removeRecursively(layout.runDir());
                if (record.deleteSnapshots()) record.snapshotIds().forEach(context.snapshots()::deleteIfPresent);
                context.store().deleteAll(record.id());
                LOG.log(INFO, "finished deleting sandbox " + record.id());
                return false;
            }
            case SUSPENDED, FAILED -> {
                if (record.runtime() != null) {
                    cleanup(record, layout);
                    settle(entry, record);
                } else {
                    // a resume whose RESUMING a host crash lost (it is saved without an fsync) may have laid a restore dir
                    if (Files.exists(layout.restoreRoot())) TreeRemoval.removeRecursively(layout.restoreRoot());
                    // the sockets of virtiofsd started ahead for the next resume (they died with the daemon)
                    TreeRemoval.removeRecursively(layout.epoch(record.epochs() + 1).dir());
                }
            }
        }
        return true;
    }

    private void settleSuspending(SandboxEntry entry, SandboxRecord record, SandboxLayout layout) {
        List<String> committed = context.snapshots().unrecordedSnapshotsOf(record.id(), new HashSet<>(record.snapshotIds()))
                .stream().filter(id -> isOfThisSandbox(record, id)).toList();
        if (!committed.isEmpty()) {
            String snapshot = committed.getLast();
            LOG.log(INFO, "suspend of " + record.id() + " had committed snapshot " + snapshot + " before the daemon stopped");
            settle(entry, record.withSnapshot(snapshot).withState(SandboxState.SUSPENDED));
        } else {
            settle(entry, record.failed("the daemon stopped during suspend before the snapshot was committed; the VM is lost, "
                    + "its durable data is intact in " + layout.durableDir()));
        }
    }

    /**
     * A checkpoint interrupted after its commit: the snapshot is in the store but not in the record. Recorded now,
     * so a later interrupted suspend cannot take it for the one it committed.
     */
    private void recordCheckpoint(SandboxEntry entry, SandboxRecord record) {
        List<String> committed = context.snapshots().unrecordedSnapshotsOf(record.id(), new HashSet<>(record.snapshotIds()))
                .stream().filter(id -> isOfThisSandbox(record, id)).toList();
        if (committed.isEmpty()) return;
        SandboxRecord updated = record;
        for (String id : committed) updated = updated.withSnapshot(id);
        LOG.log(INFO, "checkpoint of " + record.id() + " had committed snapshot " + committed.getLast() + " before the daemon stopped");
        settle(entry, updated);
    }

    /** An earlier sandbox with the same id (deleted, its snapshots kept) had another uid: its snapshots are not this one's. */
    private boolean isOfThisSandbox(SandboxRecord record, String snapshotId) {
        try {
            return record.identity().uid().equals(context.snapshots().open(snapshotId).snapshot().manifest().source().uid());
        } catch (RuntimeException e) {
            LOG.log(WARNING, "snapshot " + snapshotId + " cannot be read, so it is not taken as " + record.id() + "'s: " + e.getMessage());
            return false;
        }
    }

    private boolean tryAdopt(SandboxEntry entry, SandboxLayout layout) {
        SandboxRecord record = entry.record();
        VmRuntime runtime = record.runtime();
        if (runtime == null || !ProcessLeftovers.isChvAlive(runtime) || !answersRunning(record, runtime)) return false;
        Slot slot = null;
        if (runtime.network() != null) {
            try {
                slot = context.networks().adopt(record);
            } catch (RuntimeException e) {
                LOG.log(WARNING, "sandbox " + record.id() + " network slot " + runtime.network().slot() + " cannot be adopted: " + e.getMessage());
                return false;
            }
        }
        ShareSet shares;
        try {
            shares = ShareSet.adopt(context.virtiofsd(), shareRecords(record, layout.epoch(runtime.epoch())));
        } catch (RuntimeException e) {
            LOG.log(WARNING, "sandbox " + record.id() + " virtiofsd cannot be adopted: " + e.getMessage());
            context.networks().release(slot);
            return false;
        }
        AutoCloseable sync = context.systemInfo().startSync(layout, record.spec().systemInfoOrEmpty(), record.identity());
        // an adopted OnDemand VM still faults from its restore dir's memory-ranges, which the recovery keeps
        Optional<Path> onDemandSource = record.spec().restoreModeOrDefault() == MemoryRestoreMode.OnDemand
                ? Optional.of(layout.restoreDir(runtime.epoch()).resolve("memory-ranges")).filter(Files::exists)
                : Optional.empty();
        entry.live(new LiveVm(runtime.epoch(), null, shares, sync, onDemandSource, slot));
        // a jailed survivor keeps its uid and cgroup: neither is handed out or removed while it lives
        if (runtime.jail() != null) {
            JailRuntime jail = runtime.jail();
            // a record of a daemon before per-epoch jails names neither: its root and outbox were named after the sandbox
            Path root = jail.root() != null ? Path.of(jail.root())
                    : context.vms().jailer().rootOf(Path.of(runtime.runDir()).getFileName().toString(), runtime.epoch());
            Path outbox = jail.outbox() != null ? Path.of(jail.outbox()) : layout.sandboxDir().resolve("vmm-out");
            context.vms().jailer().adopt(record.id(), runtime.epoch(), jail.uid(), Optional.ofNullable(jail.cgroup()), root, outbox);
            // the shares' own cgroup, kept: the adopted set removes it once its processes are gone, as it would have
            context.vms().jailer().adoptShares(record.id(), runtime.epoch(), Optional.ofNullable(jail.sharesCgroup()))
                    .ifPresent(shares::confine);
        }
        LOG.log(INFO, "adopted running sandbox " + record.id() + " (cloud-hypervisor pid " + runtime.chvPid() + ")");
        return true;
    }

    private static boolean answersRunning(SandboxRecord record, VmRuntime runtime) {
        try (ChvClient client = new ChvClient(Path.of(runtime.apiSocket()), ChvTimeouts.all(Duration.ofSeconds(5)))) {
            VmState state = client.info().state();
            if (state == VmState.Running) return true;
            if (state == VmState.Paused && record.lastOperation() == Operation.CHECKPOINT) {
                client.resume();
                LOG.log(INFO, "sandbox " + record.id() + " was paused by a checkpoint the daemon did not finish; resumed");
                return true;
            }
            LOG.log(WARNING, "sandbox " + record.id() + " CHV answers but its VM is " + state + "; not adopting");
        } catch (RuntimeException e) {
            LOG.log(WARNING, "sandbox " + record.id() + " CHV does not answer: " + e.getMessage());
        }
        return false;
    }

    private List<ShareProcessRecord> shareRecords(SandboxRecord record, SandboxLayout.EpochLayout el) {
        ShareOptions options = ShareOptions.DEFAULT.withDieWithDaemon(context.config().childrenDieWithDaemon());
        List<ShareProcessRecord> records = new ArrayList<>();
        for (ShareRuntime share : record.runtime().shares()) {
            ShareKind kind = ShareKind.valueOf(share.kind());
            ShareSpec spec = ShareSpec.inRunDir(record.id(), kind, Path.of(share.sharedDir()), el.dir(), options);
            records.add(new ShareProcessRecord(spec, share.pid(), 0));
        }
        return records;
    }

    private void cleanup(SandboxRecord record, SandboxLayout layout) {
        ProcessLeftovers.killRecorded(context.virtiofsd(), record.runtime());
        // what was started but not yet recorded (a crash while CHV was starting) is found by its sockets
        ProcessLeftovers.killInRunDir(context.virtiofsd(), record.id(), layout.runDir());
        TreeRemoval.removeRecursively(layout.runDir());
        TreeRemoval.removeRecursively(layout.restoreRoot());
    }

    private void settle(SandboxEntry entry, SandboxRecord settled) {
        context.transitions().settle(entry, settled);
    }
}
