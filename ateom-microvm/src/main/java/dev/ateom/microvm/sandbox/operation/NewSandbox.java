package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.Rollback;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.timing.StepTimer;
import dev.ateom.microvm.vm.SandboxLayout;

/**
 * What create and clone share: the new sandbox persisted before anything of it is made, its files prepared, its
 * VM brought up; on any failure everything is rolled back and the sandbox is FAILED (there is nothing to return to).
 */
final class NewSandbox {
    private NewSandbox() {}

    /** The steps before the bring-up that differ between create and clone. */
    @FunctionalInterface
    interface Preparation {
        void run(SandboxRecord record, SandboxLayout layout, StepTimer timer, Rollback rollback);
    }

    static OperationResult bringUp(OperationContext context, SandboxEntry entry, Operation operation, Preparation preparation,
                                   VmSource source) {
        context.transitions().created(entry);
        SandboxRecord record = entry.record();
        SandboxLayout layout = context.layout(record.id());
        StepTimer timer = context.timer(operation);
        Rollback rollback = new Rollback();
        try {
            preparation.run(record, layout, timer, rollback);
            context.bringUp().run(entry, source, 1, timer, rollback, SandboxState.FAILED);
            rollback.clear();
            return context.transitions().finish(entry, SandboxState.RUNNING, operation, timer, null);
        } catch (RuntimeException e) {
            rollback.run(e);
            context.teardown().run(entry);
            throw context.transitions().failed(entry, operation, timer, e);
        }
    }
}
