package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.SnapshotCatalog;
import dev.ateom.microvm.sandbox.SnapshotRestores;

/**
 * Clone: a new sandbox restored from another's snapshot, with its own identity: the snapshot's durable archive
 * extracted, system-info regenerated for the new identity (while virtiofsd starts), then the VM restored. A failure
 * rolls back: FAILED.
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
        return NewSandbox.bringUp(context, entry, Operation.CLONE, (record, layout, timer, rollback) -> {
            timer.run("dirs", () -> SandboxDirs.create(layout, null, rollback));
            timer.run("durable", () -> SnapshotRestores.extractDurable(source, layout.durableDir()));
        }, (record, layout, timer, rollback) -> timer.run("systemInfo", () -> context.systemInfo().regenerate(layout,
                record.spec().systemInfoOrEmpty(), record.identity())), VmSource.restore(source));
    }
}
