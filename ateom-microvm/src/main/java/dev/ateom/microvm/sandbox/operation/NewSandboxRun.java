package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.logging.LogContext;
import dev.ateom.microvm.sandbox.AlreadyExistsException;
import dev.ateom.microvm.sandbox.NewSandboxAdmission;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.systeminfo.spec.ActorIdentity;
import dev.ateom.microvm.timing.OperationProgress;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.UUID;

/**
 * A create or clone that {@link NewSandboxAdmission} admitted: registered under its id with a new identity uid,
 * run under its lock while its lease is taken, and forgotten again when its record never reached the disk (only a
 * sandbox whose record is on disk exists: a create that could not even persist FAILED leaves nothing).
 */
public final class NewSandboxRun {
    private final OperationContext context;
    private final SandboxRegistry sandboxes;
    private final LeaseKeeper leases;

    public NewSandboxRun(OperationContext context, SandboxRegistry sandboxes, LeaseKeeper leases) {
        this.context = context;
        this.sandboxes = sandboxes;
        this.leases = leases;
    }

    /** @param nextClone for a clone: whether, once it succeeded, its snapshot's next clone is made ahead */
    public OperationResult run(NewSandboxAdmission.Plan plan, NextCloneAhead nextClone) {
        String id = plan.id();
        var requested = plan.spec().identity();
        SandboxEntry entry = new SandboxEntry(SandboxRecord.creating(id, plan.spec(),
                new ActorIdentity(requested.name(), requested.namespace(), UUID.randomUUID().toString()),
                plan.source() == null ? null : plan.source().id(), plan.operation()));
        SandboxEntry existing = sandboxes.putIfAbsent(entry);
        if (existing != null) throw new AlreadyExistsException(id, existing.record().state());
        try (var lock = entry.acquire(plan.operation()); var log = LogContext.with("sandbox", id)) {
            if (Files.exists(context.store().sandboxDir(id), LinkOption.NOFOLLOW_LINKS)) throw AlreadyExistsException.leftoverDirectory(id);
            OperationProgress.current().admitted(id);
            entry.claiming(leases.claim(entry.record(), plan.operation()));
            return leases.following(entry, () -> plan.source() == null ? new CreateOperation(context).run(entry)
                    : new CloneOperation(context, plan.source(), plan.pulled(), nextClone).run(entry));
        } finally {
            if (!context.store().hasRecord(id)) sandboxes.remove(entry);
        }
    }
}
