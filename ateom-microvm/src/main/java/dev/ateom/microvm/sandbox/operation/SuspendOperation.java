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
 * Suspend: sync stopped, VM paused, CHV snapshot into a staging dir, durable archive, atomic commit; it answers
 * SUSPENDED there, and the processes stop in the background (the next operation on the sandbox waits for that).
 * Before the commit a failure undoes back to a running VM (RUNNING; FAILED only if that fails too); after it the
 * snapshot is the sandbox and teardown problems are only logged.
 */
public final class SuspendOperation {
    private final OperationContext context;
    private final SnapshotTags tags;

    public SuspendOperation(OperationContext context) { this(context, SnapshotTags.NONE); }

    /** @param tags the snapshot's name and labels, already validated and the name reserved */
    public SuspendOperation(OperationContext context, SnapshotTags tags) {
        this.context = context;
        this.tags = tags;
    }

    /** Runs on a RUNNING sandbox. */
    public OperationResult run(SandboxEntry entry) {
        SandboxLayout layout = context.layout(entry.record().id());
        StepTimer timer = context.timer(Operation.SUSPEND);
        // the record saves are accounted beside the steps, as a resume's are (the bench's records column)
        timer.account(ResumeOperation.RECORDS, () -> context.transitions().begin(entry, SandboxState.SUSPENDING, Operation.SUSPEND));
        String snapshotId = capture(entry, layout, timer);
        // Committed: from here the snapshot is the sandbox. Teardown failures are logged, never undo the commit.
        timer.account(ResumeOperation.RECORDS, () -> new DurableSyncMarker(layout.sandboxDir()).markInSyncWith(snapshotId));
        context.transitions().committed(entry, snapshotId);
        CrashPoints.before(Operation.SUSPEND.wireName(), "settle");
        // the answer does not wait for the processes to stop: the next operation on the sandbox does (SandboxEntry)
        OperationResult result = context.transitions().suspendedBeforeTeardown(entry, timer, snapshotId);
        context.teardown().runAfterAnswer(entry);
        return result;
    }

    /** Everything up to the commit, undone back to a running VM if any step fails; the committed snapshot's id. */
    private String capture(SandboxEntry entry, SandboxLayout layout, StepTimer timer) {
        SandboxRecord record = entry.record();
        LiveVm live = entry.live();
        Rollback rollback = new Rollback();
        try {
            timer.run("stopSync", () -> Teardown.closeQuietly(live.sync(), "system-info sync of " + record.id()));
            rollback.add("restart system-info sync", () -> entry.live(entry.live().withSync(
                    context.systemInfo().startSync(layout, record.spec().systemInfoOrEmpty(), record.identity()))));
            ChvClient chv = RunningVm.client(entry);
            timer.run("pause", chv::pause);
            rollback.add("resume the VM", chv::resume);
            SnapshotDraft staging = timer.step("stage", () -> context.snapshotWriter().begin(record.id(), tags));
            rollback.add("discard staging dir", staging::discard);
            timer.run("snapshot", () -> context.vms().jailer().snapshot(record.id(), staging.chvDir(), chv::snapshot));
            String chvVersion = RunningVm.chvVersion(entry, chv);
            timer.run("complete", () -> OnDemandSnapshotCompletion.complete(staging.chvDir().resolve("memory-ranges"),
                    live.onDemandSource(), chvVersion));
            timer.run("archive", () -> staging.archiveDurable(layout.durableDir()));
            // commit also punches holes over zero pages of memory-ranges, so the snapshot stays sparse
            String snapshotId = timer.step("commit", () -> staging.commit(entry.record(), chvVersion));
            rollback.clear();
            return snapshotId;
        } catch (RuntimeException e) {
            // Not committed: the snapshot, if any, is gone
            throw BackToRunning.afterFailure(context, entry, Operation.SUSPEND, timer, rollback, e, "the sandbox is still running");
        }
    }
}
