package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.sandbox.TreeRemoval;
import dev.ateom.microvm.timing.StepTimer;
import dev.ateom.microvm.vm.SandboxLayout;

import static java.lang.System.Logger.Level.INFO;

/**
 * Delete: the request is persisted (DELETING, with or without the snapshots) before anything is removed, so a
 * crash or a failure half way leaves a sandbox that the next delete, or recovery at start, finishes whole.
 */
public final class DeleteOperation {
    private static final System.Logger LOG = System.getLogger(DeleteOperation.class.getName());
    private final OperationContext context;

    public DeleteOperation(OperationContext context) { this.context = context; }

    /** Runs in any state; when it returns, nothing of the sandbox is left but (unless asked) its snapshots. */
    public void run(SandboxEntry entry, boolean withSnapshots) {
        String id = entry.record().id();
        SandboxLayout layout = context.layout(id);
        StepTimer timer = context.timer(Operation.DELETE);
        context.transitions().apply(entry, entry.record().deleting(withSnapshots));
        boolean dropSnapshots = entry.record().deleteSnapshots();
        try {
            timer.run("teardown", () -> context.teardown().run(entry));
            timer.run("leftovers", () -> ProcessLeftovers.killRecorded(context.virtiofsd(), entry.record().runtime()));
            timer.run("runDir", () -> TreeRemoval.removeRecursively(layout.runDir()));
            if (dropSnapshots) timer.run("snapshots", () -> entry.record().snapshotIds().forEach(context.snapshots()::deleteIfPresent));
            timer.run("record", () -> context.store().deleteAll(id));
        } catch (RuntimeException e) {
            throw context.transitions().returnedTo(entry, SandboxState.DELETING, Operation.DELETE, timer, e,
                    "the sandbox stays DELETING; repeat the delete to finish it");
        }
        context.transitions().deleted(entry, timer);
        LOG.log(INFO, "deleted sandbox " + id + (dropSnapshots ? " and its snapshots" : ""));
    }
}
