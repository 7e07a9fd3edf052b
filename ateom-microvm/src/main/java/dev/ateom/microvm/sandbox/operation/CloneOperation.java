package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.SnapshotCatalog;
import dev.ateom.microvm.sandbox.SnapshotRestores;

import java.time.Duration;

/**
 * Clone: a new sandbox restored from another's snapshot, with its own identity: the snapshot's durable archive
 * extracted, system-info regenerated for the new identity (while virtiofsd starts), then the VM restored. A failure
 * rolls back: FAILED. A snapshot pulled from the store for the clone (before the sandbox existed) is its first step.
 */
public final class CloneOperation {
    private final OperationContext context;
    private final SnapshotCatalog.SnapshotHandle source;
    private final Duration pulled;

    /** @param pulled how long pulling {@code source} from the store took, null when it was on this host */
    public CloneOperation(OperationContext context, SnapshotCatalog.SnapshotHandle source, Duration pulled) {
        this.context = context;
        this.source = source;
        this.pulled = pulled;
    }

    /** Runs on a new CREATING sandbox, registered and locked. */
    public OperationResult run(SandboxEntry entry) {
        return NewSandbox.bringUp(context, entry, Operation.CLONE, (record, layout, timer, rollback) -> {
            if (pulled != null) timer.before("pull", pulled);
            timer.run("dirs", () -> SandboxDirs.create(layout, null, rollback));
            timer.run("durable", () -> SnapshotRestores.extractDurable(source, layout.durableDir()));
        }, (record, layout, timer, rollback) -> context.systemInfo().regenerate(layout, record.spec().systemInfoOrEmpty(),
                record.identity()), VmSource.restore(source));
    }
}
