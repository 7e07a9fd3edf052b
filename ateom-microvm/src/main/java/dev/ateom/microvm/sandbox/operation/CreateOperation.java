package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.virtiofsd.ShareSetsAhead;

/** Create: the sandbox's dirs, its system-info volumes (while virtiofsd starts), a booted VM. A failure rolls everything back: FAILED. */
public final class CreateOperation {
    private final OperationContext context;

    public CreateOperation(OperationContext context) { this.context = context; }

    /** Runs on a new CREATING sandbox, registered and locked. */
    public OperationResult run(SandboxEntry entry) {
        return NewSandbox.bringUp(context, entry, Operation.CREATE,
                (record, layout, timer, rollback) -> {
                    timer.run("dirs", () -> SandboxDirs.create(layout, record.spec().durableDirsOrEmpty(), rollback));
                    return ShareSetsAhead.Claim.NONE;
                },
                (record, layout) -> context.systemInfo().writeInitial(layout, record.spec().systemInfoOrEmpty(),
                        record.identity()),
                VmSource.boot());
    }
}
