package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.logging.LogContext;
import dev.ateom.microvm.sandbox.AlreadyExistsException;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.RestoreOptions;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SnapshotCatalog;
import dev.ateom.microvm.systeminfo.spec.ActorIdentity;
import dev.ateom.snapshot.Manifest;

import java.nio.file.Files;
import java.nio.file.LinkOption;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The first half of an adopt: a sandbox another host pushed becomes this host's, same id, uid and identity, as a
 * SUSPENDED record on the pulled snapshot, holding its lease (so two hosts never run it); the resume that follows is
 * an ordinary one. On a refusal nothing of it is left, not even the snapshot the adopt pulled.
 */
public final class Adoption {
    private static final System.Logger LOG = System.getLogger(Adoption.class.getName());

    private final OperationContext context;
    private final SandboxRegistry sandboxes;
    private final LeaseKeeper leases;

    public Adoption(OperationContext context, SandboxRegistry sandboxes, LeaseKeeper leases) {
        this.context = context;
        this.sandboxes = sandboxes;
        this.leases = leases;
    }

    /** Pulls the snapshot if it is not here and registers the adopted sandbox; returns its id, to resume. */
    public String admit(String snapshotId, RestoreOptions options) {
        boolean pulledNow = context.snapshots().ensureLocal(snapshotId, options.allowCpuMismatch());
        String id;
        try {
            id = register(snapshotId);
        } catch (RuntimeException refused) {
            if (pulledNow) removePulledSnapshot(snapshotId, refused);
            throw refused;
        }
        LOG.log(INFO, "adopted sandbox " + id + " from snapshot " + snapshotId + "; resuming it on this host");
        return id;
    }

    /** The adopted sandbox's lease, directories and SUSPENDED record; returns its id. On failure nothing of it is left. */
    private String register(String snapshotId) {
        SnapshotCatalog.SnapshotHandle handle = context.snapshots().open(snapshotId);
        Manifest.SourceSandbox source = handle.snapshot().manifest().source();
        String id = source.sandboxId();
        SandboxRecord present = sandboxes.find(id).map(SandboxEntry::record).orElse(null);
        if (present != null) throw new AlreadyExistsException(id, present.state());
        leases.acquire(id);
        SandboxEntry entry = new SandboxEntry(SandboxRecord.adopted(id, handle.sandboxSpec(),
                new ActorIdentity(source.name(), source.namespace(), source.uid()), snapshotId));
        try {
            SandboxEntry existing = sandboxes.putIfAbsent(entry);
            if (existing != null) throw new AlreadyExistsException(id, existing.record().state());
            try (var lock = entry.acquire(Operation.RESUME); var log = LogContext.with("sandbox", id)) {
                if (Files.exists(context.store().sandboxDir(id), LinkOption.NOFOLLOW_LINKS)) throw AlreadyExistsException.leftoverDirectory(id);
                new AdoptOperation(context).prepare(entry);
            }
        } catch (RuntimeException e) {
            sandboxes.remove(entry);
            // an adopt of the same sandbox on this host won the race: the lease (one per host) is the winner's now
            if (!sandboxes.contains(id)) leases.release(id);
            throw e;
        }
        return id;
    }

    /**
     * A refused adopt (lease held, leases unavailable, id taken) leaves no snapshot it pulled behind, unless a sandbox
     * of this host uses it by now (a concurrent adopt or clone of the same snapshot). A snapshot that was here before
     * the request is never touched: the caller only comes here for one it pulled.
     */
    private void removePulledSnapshot(String snapshotId, RuntimeException refusal) {
        if (sandboxes.uses(snapshotId)) return;
        try {
            context.snapshots().deleteIfPresent(snapshotId);
            LOG.log(INFO, "adopt from snapshot " + snapshotId + " refused (" + refusal.getMessage() + "): removed the snapshot it pulled");
        } catch (RuntimeException e) {
            refusal.addSuppressed(e);
            LOG.log(WARNING, "adopt from snapshot " + snapshotId + " refused; the snapshot it pulled could not be removed: " + e.getMessage());
        }
    }
}
