package dev.ateom.microvm.sandbox.operation;

import dev.ateom.chv.ChvClient;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.Rollback;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.sandbox.SnapshotDraft;
import dev.ateom.microvm.sandbox.SnapshotTags;
import dev.ateom.microvm.timing.CrashPoints;
import dev.ateom.microvm.timing.StepTimer;
import dev.ateom.microvm.vm.OnDemandSnapshotCompletion;
import dev.ateom.microvm.vm.SandboxLayout;

/**
 * Checkpoint: a snapshot of a running sandbox that keeps running. The guest is paused only for what must match
 * its memory (the CHV snapshot and the durable archive); staging happens before the pause, completing and
 * committing after the resume, since they touch only files the running VM no longer writes (docs/decisions.md).
 * System-info sync is stopped from before the pause until the resume and catches up then (its first pass
 * reconciles every volume). A failure anywhere resumes the VM, restarts the sync and discards the staging dir:
 * the sandbox stays RUNNING with no partial snapshot (FAILED only if its VM cannot be made to run again).
 */
public final class CheckpointOperation {
    /** The timings key of the span the guest was paused (pause through vmResume). */
    public static final String PAUSE_WINDOW = "pauseWindow";

    private final OperationContext context;
    private final SnapshotTags tags;

    public CheckpointOperation(OperationContext context) { this(context, SnapshotTags.NONE); }

    /** @param tags the snapshot's name and labels, already validated and the name reserved */
    public CheckpointOperation(OperationContext context, SnapshotTags tags) {
        this.context = context;
        this.tags = tags;
    }

    /** Runs on a RUNNING sandbox; the answer's sandbox is RUNNING and its latest snapshot the checkpoint. */
    public OperationResult run(SandboxEntry entry) {
        StepTimer timer = context.timer(Operation.CHECKPOINT);
        // persisted first: a crash from here on is a RUNNING sandbox whose VM recovery may find paused
        context.transitions().begin(entry, SandboxState.RUNNING, Operation.CHECKPOINT);
        String snapshotId = capture(entry, timer);
        // committed but not yet in the record: recovery finds it in the store (CrashDuringCheckpointTest)
        CrashPoints.before(Operation.CHECKPOINT.wireName(), "record");
        context.transitions().committed(entry, snapshotId);
        return context.transitions().finish(entry, SandboxState.RUNNING, Operation.CHECKPOINT, timer, snapshotId);
    }

    private String capture(SandboxEntry entry, StepTimer timer) {
        SandboxRecord record = entry.record();
        SandboxLayout layout = context.layout(record.id());
        Rollback rollback = new Rollback();
        try {
            ChvClient chv = RunningVm.client(entry);
            timer.run("stopSync", () -> stopSync(entry));
            rollback.add("restart system-info sync", () -> startSyncIfStopped(entry, layout));
            SnapshotDraft staging = timer.step("stage", () -> context.snapshotWriter().begin(record.id(), tags));
            rollback.add("discard staging dir", staging::discard);
            long pausedAt = System.nanoTime();
            timer.run("pause", chv::pause);
            rollback.add("resume the VM", () -> resumeIfPaused(entry));
            timer.run("snapshot", () -> context.vms().jailer().snapshot(record.id(), staging.chvDir(), chv::snapshot));
            timer.run("archive", () -> staging.archiveDurable(layout.durableDir()));
            timer.run("vmResume", chv::resume);
            timer.span(PAUSE_WINDOW, pausedAt, System.nanoTime());
            timer.run("sync", () -> startSyncIfStopped(entry, layout));
            String chvVersion = RunningVm.chvVersion(entry, chv);
            timer.run("complete", () -> OnDemandSnapshotCompletion.complete(staging.chvDir().resolve("memory-ranges"),
                    entry.live().onDemandSource(), chvVersion));
            String snapshotId = timer.step("commit", () -> staging.commit(entry.record(), chvVersion));
            rollback.clear();
            return snapshotId;
        } catch (RuntimeException e) {
            throw BackToRunning.afterFailure(context, entry, Operation.CHECKPOINT, timer, rollback, e, "the sandbox is still running and no snapshot was made");
        }
    }

    /** Nothing is written to system-info from here until {@link #startSyncIfStopped}: the VM may be saved. */
    private static void stopSync(SandboxEntry entry) {
        LiveVm live = entry.live();
        Teardown.closeQuietly(live.sync(), "system-info sync of " + entry.record().id());
        entry.live(live.withSync(null));
    }

    /** Starts the sync again unless it runs; its first pass reconciles every volume, so no change made meanwhile is lost. */
    private void startSyncIfStopped(SandboxEntry entry, SandboxLayout layout) {
        LiveVm live = entry.live();
        if (live == null || live.sync() != null) return;
        SandboxRecord record = entry.record();
        entry.live(live.withSync(context.systemInfo().startSync(layout, record.spec().systemInfoOrEmpty(), record.identity())));
    }

    private static void resumeIfPaused(SandboxEntry entry) {
        if (!RunningVm.isRunning(entry)) RunningVm.client(entry).resume();
    }
}
