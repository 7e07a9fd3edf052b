package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.InvalidSpecException;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.OperationFailedException;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.RemoteStoreException;
import dev.ateom.microvm.sandbox.Rollback;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.timing.StepTimer;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.virtiofsd.ShareSetsAhead;

/**
 * What create and clone share: the new sandbox persisted before anything of it is made, its files prepared, its
 * VM brought up; on any failure everything is rolled back and the sandbox is FAILED (there is nothing to return to),
 * but for a spec found invalid only while preparing (a hostDirectory source that cannot be read): that is the
 * request's fault, answered 400 like any invalid spec, and leaves no sandbox behind; so does a lease that cannot be
 * had (held by another host, or the store cannot be asked), which is awaited before any VM exists.
 */
final class NewSandbox {
    private NewSandbox() {}

    /** The steps before the bring-up that differ between create and clone. */
    @FunctionalInterface
    interface Preparation {
        /** @return the shares made ahead for the new sandbox (a clone's), or {@link ShareSetsAhead.Claim#NONE} */
        ShareSetsAhead.Claim run(SandboxRecord record, SandboxLayout layout, StepTimer timer, Rollback rollback);
    }

    /** What may be written while virtiofsd starts (system-info). */
    @FunctionalInterface
    interface Beside {
        void run(SandboxRecord record, SandboxLayout layout);
    }

    /**
     * @param preparation what must be on disk before virtiofsd starts (the dirs, a clone's durable dir)
     * @param beside      what may be written while virtiofsd starts (system-info): the bring-up's step {@code systemInfo}
     */
    static OperationResult bringUp(OperationContext context, SandboxEntry entry, Operation operation, Preparation preparation,
                                   Beside beside, VmSource source) {
        SandboxRecord record = entry.record();
        StepTimer timer = context.timer(operation);
        try {
            timer.account(ResumeOperation.RECORDS, () -> context.transitions().created(entry));
        } catch (RuntimeException e) {
            // e.g. a full disk: without a record there is no sandbox, so nothing of it may stay
            context.store().deleteAllQuietly(record.id());
            throw new OperationFailedException(operation, record.id(), null,
                    operation.wireName() + " failed: cannot persist the sandbox's record: " + Transitions.describe(e), e);
        }
        SandboxLayout layout = context.layout(record.id());
        Rollback rollback = new Rollback();
        try {
            ShareSetsAhead.Claim madeAhead = preparation.run(record, layout, timer, rollback);
            context.bringUp().run(entry, source, 1, timer, rollback, SandboxState.FAILED, () -> beside.run(record, layout), madeAhead);
            rollback.clear();
            OperationResult running = context.transitions().running(entry, operation, timer);
            context.standbyShares().schedule(entry);
            return running;
        } catch (RuntimeException e) {
            rollback.run(e);
            context.teardown().run(entry);
            if (e instanceof InvalidSpecException refused) throw context.transitions().refused(entry, operation, timer, refused);
            // the lease could not be had (another host runs a sandbox of this id, the store cannot be asked): no VM ran
            if (e instanceof RemoteStoreException refused) throw context.transitions().refused(entry, operation, timer, refused);
            throw context.transitions().failed(entry, operation, timer, e);
        }
    }
}
