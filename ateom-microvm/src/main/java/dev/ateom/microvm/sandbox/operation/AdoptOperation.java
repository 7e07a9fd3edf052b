package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.Rollback;
import dev.ateom.microvm.vm.SandboxLayout;

/**
 * Adopt, first half: a sandbox taken over from a snapshot another host pushed gets its directories and its record,
 * SUSPENDED at that snapshot, on this host. The second half is an ordinary resume (durable dir laid from the archive,
 * since no sync marker exists here; system-info regenerated from this host's sources).
 */
public final class AdoptOperation {
    private final OperationContext context;

    public AdoptOperation(OperationContext context) { this.context = context; }

    /** Runs on a new SUSPENDED entry, registered and locked; on failure removes what it made. */
    public void prepare(SandboxEntry entry) {
        SandboxLayout layout = context.layout(entry.record().id());
        Rollback rollback = new Rollback();
        try {
            SandboxDirs.create(layout, null, rollback);
            context.store().save(entry.record());
            rollback.clear();
        } catch (RuntimeException e) {
            rollback.run(e);
            context.store().deleteAllQuietly(entry.record().id());
            throw e;
        }
    }
}
