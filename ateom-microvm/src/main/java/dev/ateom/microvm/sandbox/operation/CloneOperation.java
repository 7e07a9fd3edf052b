package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.SnapshotCatalog;
import dev.ateom.microvm.sandbox.SnapshotRestores;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.virtiofsd.ShareSetsAhead;
import dev.ateom.virtiofsd.VirtiofsdLauncher;

import java.time.Duration;
import java.util.Optional;

/**
 * Clone: a new sandbox restored from another's snapshot, with its own identity: the snapshot's durable archive
 * extracted, system-info regenerated for the new identity (while virtiofsd starts), then the VM restored. A failure
 * rolls back: FAILED. A snapshot pulled from the store for the clone (before the sandbox existed) is its first step.
 * With {@code --clone-ahead}, the durable dir and the three virtiofsd made ahead for the snapshot's next clone are
 * taken instead (step {@code takeAhead}; {@link ClonesAhead}), and a clone that succeeded has the next one made, unless
 * its snapshot was taken for its request alone ({@link NextCloneAhead#SKIP}).
 */
public final class CloneOperation {
    /** The step that takes what was made ahead for the snapshot's next clone. */
    static final String TAKE_AHEAD = "takeAhead";
    private final OperationContext context;
    private final SnapshotCatalog.SnapshotHandle source;
    private final Duration pulled;
    private final NextCloneAhead nextClone;

    /**
     * @param pulled    how long pulling {@code source} from the store took, null when it was on this host
     * @param nextClone whether a clone that succeeds has the snapshot's next clone made ahead
     */
    public CloneOperation(OperationContext context, SnapshotCatalog.SnapshotHandle source, Duration pulled, NextCloneAhead nextClone) {
        this.context = context;
        this.source = source;
        this.pulled = pulled;
        this.nextClone = nextClone;
    }

    /** Runs on a new CREATING sandbox, registered and locked. */
    public OperationResult run(SandboxEntry entry) {
        ClonesAhead ahead = context.vms().clonesAhead();
        OperationResult result = NewSandbox.bringUp(context, entry, Operation.CLONE, (record, layout, timer, rollback) -> {
            if (pulled != null) timer.before("pull", pulled);
            timer.run("dirs", () -> SandboxDirs.create(layout, null, rollback));
            Optional<ShareSetsAhead.Claim> made = ahead.enabled()
                    ? timer.step(TAKE_AHEAD, () -> ahead.take(source.id(), layout, context.vms().shareSpecs(record, layout, layout.epoch(1)), rollback))
                    : Optional.empty();
            if (made.isPresent()) return made.get();
            timer.run("durable", () -> SnapshotRestores.extractDurable(source, layout.durableDir()));
            return ShareSetsAhead.Claim.NONE;
        }, (record, layout) -> context.systemInfo().regenerate(layout, record.spec().systemInfoOrEmpty(), record.identity()),
                VmSource.restore(source));
        VirtiofsdLauncher launcher = context.virtiofsd();
        if (nextClone == NextCloneAhead.MAKE && ahead.enabled() && launcher != null) {
            String rootfs = result.sandbox().spec().rootfs();
            int vcpus = result.sandbox().spec().vcpusOrDefault();
            ahead.makeNext(source, launcher, (SandboxLayout layout) -> context.vms().shareSpecs(rootfs, layout, layout.epoch(1)),
                    (set, layout) -> context.vms().jailer().confineAhead(set, layout.sandboxId() + "-fs", vcpus));
        }
        return result;
    }
}
