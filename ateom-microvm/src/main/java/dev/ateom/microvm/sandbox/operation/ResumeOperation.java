package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.PullFor;
import dev.ateom.microvm.sandbox.RemoteStoreException;
import dev.ateom.microvm.sandbox.RestoreOptions;
import dev.ateom.microvm.sandbox.Rollback;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.sandbox.SandboxStore.Durability;
import dev.ateom.microvm.sandbox.SnapshotCatalog;
import dev.ateom.microvm.sandbox.SnapshotRestores;
import dev.ateom.microvm.timing.StepTimer;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.virtiofsd.ShareSetsAhead;

import static java.lang.System.Logger.Level.INFO;

/**
 * Resume: the latest snapshot checked, the durable dir laid from its archive unless it provably is the
 * snapshot's, system-info regenerated (while virtiofsd starts), then the VM restored. The snapshot is never touched, so a failure
 * leaves the sandbox SUSPENDED and the resume can be retried.
 */
public final class ResumeOperation {
    /** The time the operation's record saves took, beside the steps in the answer's timings. */
    static final String RECORDS = "records";
    private static final System.Logger LOG = System.getLogger(ResumeOperation.class.getName());
    private final OperationContext context;
    private final RestoreOptions options;

    public ResumeOperation(OperationContext context, RestoreOptions options) {
        this.context = context;
        this.options = options;
    }

    /** Runs on a SUSPENDED sandbox. */
    public OperationResult run(SandboxEntry entry) {
        SandboxRecord record = entry.record();
        SandboxLayout layout = context.layout(record.id());
        StepTimer timer = context.timer(Operation.RESUME);
        Rollback rollback = new Rollback();
        if (!context.snapshots().isLocal(record.latestSnapshotId())) {
            // before RESUMING: a pull that fails leaves the sandbox SUSPENDED and untouched, and its problem says why
            try {
                timer.run("pull", () -> context.snapshots().ensureLocal(record.latestSnapshotId(), options.allowCpuMismatch(),
                        new PullFor.Sandbox(record.id())));
            } catch (RemoteStoreException e) {
                throw e.concerning(record.id(), record.state());
            }
        }
        // RESUMING is written beside the steps up to the runtime's save, which waits for it, when what the resume starts
        // dies with the daemon: a crash before it is on disk leaves SUSPENDED with nothing running, which is what
        // recovery makes of RESUMING. Processes that outlive the daemon are found by a RESUMING record's recovery only,
        // so it is on disk before they start (docs/decisions.md, "Resume and clone at the hypervisor's speed").
        Durability beginning = context.config().childrenDieWithDaemon() ? Durability.BESIDE : Durability.SYNCED_AFTER;
        timer.account(RECORDS, () -> context.transitions().begin(entry, SandboxState.RESUMING, Operation.RESUME, beginning));
        try {
            SnapshotCatalog.SnapshotHandle snapshot = timer.step("verify", () -> context.snapshots().openForRestore(record.latestSnapshotId()));
            DurableSyncMarker durable = new DurableSyncMarker(layout.sandboxDir());
            if (!durable.isInSyncWith(snapshot.id())) {
                LOG.log(INFO, "durable dir of " + record.id() + " may be newer than snapshot " + snapshot.id() + ": laying it from the archive");
                // a durable share started ahead serves the dir being replaced: it goes, and the bring-up starts its own
                context.sharesAhead().discard(record.id());
                timer.run("durable", () -> SnapshotRestores.replaceDurable(snapshot, layout.durableDir()));
                durable.markInSyncWith(snapshot.id());
            }
            context.bringUp().run(entry, VmSource.restore(snapshot), record.epochs() + 1, timer, rollback, SandboxState.SUSPENDED,
                    () -> context.systemInfo().regenerate(layout, record.spec().systemInfoOrEmpty(), record.identity()),
                    ShareSetsAhead.Claim.NONE);
            rollback.clear();
            OperationResult running = context.transitions().running(entry, Operation.RESUME, timer);
            context.standbyShares().schedule(entry);
            return running;
        } catch (RuntimeException e) {
            // first the previous VM's teardown (if still running): the record drops the runtime only once that is done,
            // and the rollback then removes a restore root no VM uses any more
            entry.awaitTeardown();
            rollback.run(e);
            entry.live(null);
            // a failed resume leaves no process: not even virtiofsd started ahead that it did not get to claim
            context.sharesAhead().discard(record.id());
            throw context.transitions().returnedTo(entry, SandboxState.SUSPENDED, Operation.RESUME, timer, e,
                    "the sandbox is still suspended; the resume can be retried");
        }
    }
}
