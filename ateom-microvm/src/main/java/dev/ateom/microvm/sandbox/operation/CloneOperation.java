package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.Rollback;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.sandbox.SnapshotCatalog;
import dev.ateom.microvm.timing.StepTimer;
import dev.ateom.microvm.vm.SandboxLayout;

/**
 * Clone: a new sandbox restored from another's snapshot, with its own identity: the snapshot's durable archive
 * extracted, system-info regenerated for the new identity, then the VM restored. A failure rolls back: FAILED.
 */
public final class CloneOperation {
    private final OperationContext context;
    private final SnapshotCatalog.SnapshotHandle source;

    public CloneOperation(OperationContext context, SnapshotCatalog.SnapshotHandle source) {
        this.context = context;
        this.source = source;
    }

    /** Runs on a new CREATING sandbox, registered and locked. */
    public OperationResult run(SandboxEntry entry) {
        context.transitions().created(entry);
        SandboxRecord record = entry.record();
        SandboxLayout layout = context.layout(record.id());
        StepTimer timer = context.timer(Operation.CLONE);
        Rollback rollback = new Rollback();
        try {
            timer.run("dirs", () -> SandboxDirs.create(layout, null, rollback));
            timer.run("durable", () -> context.snapshots().extractDurable(source, layout.durableDir()));
            timer.run("systemInfo", () -> context.systemInfo().regenerate(layout, record.spec().systemInfoOrEmpty(), record.identity()));
            context.bringUp().run(entry, VmSource.restore(source), 1, timer, rollback);
            rollback.clear();
            return context.transitions().finish(entry, SandboxState.RUNNING, Operation.CLONE, timer, null);
        } catch (RuntimeException e) {
            rollback.run(e);
            context.teardown().run(entry);
            throw context.transitions().failed(entry, Operation.CLONE, timer, e);
        }
    }
}
