package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.Rollback;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.timing.StepTimer;
import dev.ateom.microvm.vm.SandboxLayout;

/** Create: the sandbox's dirs and system-info volumes, then a booted VM. A failure rolls everything back: FAILED. */
public final class CreateOperation {
    private final OperationContext context;

    public CreateOperation(OperationContext context) { this.context = context; }

    /** Runs on a new CREATING sandbox, registered and locked. */
    public OperationResult run(SandboxEntry entry) {
        context.transitions().created(entry);
        SandboxRecord record = entry.record();
        SandboxLayout layout = context.layout(record.id());
        StepTimer timer = context.timer(Operation.CREATE);
        Rollback rollback = new Rollback();
        try {
            timer.run("dirs", () -> SandboxDirs.create(layout, record.spec().durableDirsOrEmpty(), rollback));
            timer.run("systemInfo", () -> context.systemInfo().writeInitial(layout, record.spec().systemInfoOrEmpty(), record.identity()));
            context.bringUp().run(entry, VmSource.boot(), 1, timer, rollback);
            rollback.clear();
            return context.transitions().finish(entry, SandboxState.RUNNING, Operation.CREATE, timer, null);
        } catch (RuntimeException e) {
            rollback.run(e);
            context.teardown().run(entry);
            throw context.transitions().failed(entry, Operation.CREATE, timer, e);
        }
    }
}
