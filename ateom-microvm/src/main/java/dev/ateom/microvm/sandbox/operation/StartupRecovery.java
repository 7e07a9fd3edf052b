package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.PrivateDirs;
import dev.ateom.microvm.logging.LogContext;
import dev.ateom.microvm.sandbox.SandboxNetworks;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static java.lang.System.Logger.Level.WARNING;

/**
 * Brings records in line with what is really running, once at start: every persisted sandbox is settled by
 * {@link Recovery} (RUNNING ones whose CHV still answers are adopted; everything that was in the middle of something
 * is cleaned and settled), the network slots no surviving sandbox owns are removed, leases follow what runs, and
 * directories no record owns are reported.
 */
public final class StartupRecovery {
    private static final System.Logger LOG = System.getLogger(StartupRecovery.class.getName());

    private final OperationContext context;
    private final SandboxRegistry sandboxes;
    private final LeaseKeeper leases;

    public StartupRecovery(OperationContext context, SandboxRegistry sandboxes, LeaseKeeper leases) {
        this.context = context;
        this.sandboxes = sandboxes;
        this.leases = leases;
    }

    public void run() {
        Recovery recovery = new Recovery(context);
        List<SandboxRecord> records = context.store().loadAll();
        List<SandboxEntry> settled = new ArrayList<>();
        // the slots of sandboxes that may still run are left alone; every other slot of the daemon's is removed
        context.networks().open(SandboxNetworks.ownedBy(records));
        for (SandboxRecord record : records) {
            try (var log = LogContext.with("sandbox", record.id())) {
                SandboxEntry entry = new SandboxEntry(record);
                sandboxes.putIfAbsent(entry);
                if (!recovery.run(entry)) sandboxes.remove(entry);
                else if (record.state() != SandboxState.SUSPENDED && record.state() != SandboxState.FAILED) settled.add(entry);
            } catch (RuntimeException e) {
                LOG.log(WARNING, "recovery of sandbox " + record.id() + " failed: " + e.getMessage(), e);
            }
        }
        context.networks().reclaimUnadopted();
        // the cgroups and jail roots of a killed daemon's VMMs that were not adopted (their processes die with them)
        context.vms().jailer().removeLeftovers();
        // the clones a killed daemon made ahead for nobody (their virtiofsd died with it)
        context.vms().clonesAhead().removeLeftovers(context.virtiofsd());
        leases.afterRecovery(settled); // in the background: running ones keep their lease, the others give it back
        for (String id : sandboxes.ids()) PrivateDirs.ensure(context.store().sandboxDir(id));
        for (Path orphan : context.store().orphanDirs(sandboxes.ids())) {
            LOG.log(WARNING, "orphan sandbox directory " + orphan + ": no sandbox record owns it (unreadable or missing "
                    + "sandbox.json); it is left for an operator to inspect and remove, and its id cannot be used until then");
        }
    }
}
