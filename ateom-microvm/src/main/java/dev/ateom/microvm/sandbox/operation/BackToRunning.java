package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.Rollback;
import dev.ateom.microvm.sandbox.SandboxException;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.timing.StepTimer;

/**
 * How an operation that starts from a RUNNING sandbox and commits nothing on failure (suspend, checkpoint) fails:
 * its undo steps run, and the sandbox is RUNNING again when its VM still runs; only when that cannot be had are its
 * processes stopped and it is FAILED.
 */
final class BackToRunning {
    private BackToRunning() {}

    static SandboxException afterFailure(OperationContext context, SandboxEntry entry, Operation operation, StepTimer timer,
                                         Rollback rollback, RuntimeException cause, String consequence) {
        rollback.run(cause);
        if (RunningVm.isRunning(entry)) {
            return context.transitions().returnedTo(entry, SandboxState.RUNNING, operation, timer, cause, consequence);
        }
        context.teardown().run(entry);
        return context.transitions().failed(entry, operation, timer, cause);
    }
}
