package dev.ateom.microvm.remote;

import dev.ateom.microvm.config.RemoteStoreConfig;
import dev.ateom.microvm.sandbox.RemoteStoreException;
import dev.ateom.store.LeaseMode;
import dev.ateom.store.LeaseVerdict;
import dev.ateom.store.LeaseVerdicts;
import dev.ateom.store.ProbeResult;
import dev.ateom.store.RemoteSnapshotStore;
import dev.ateom.store.StoreDamagesDataException;
import dev.ateom.store.StoreException;
import dev.ateom.store.StoreOption;

import java.io.IOException;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * What the daemon checks of its store at start, and logs: access; a probe object written and read back (a store that
 * damages what it keeps is refused for good, every store request then answers 502); then the store's lease verdict,
 * established by probing unless a final one is recorded, with what the probe cost. Never fails the start.
 */
final class StoreAtStart {
    /** RemoteSnapshots' logger: the store's start-up lines read as one component's, and are filtered as one. */
    private static final System.Logger LOG = System.getLogger(RemoteSnapshots.class.getName());

    /** {@code unusable}: why the store must not be used (null: it may); {@code probe}: the probe this start ran, if any. */
    record Findings(RemoteStoreException unusable, ProbeResult probe) {}

    private StoreAtStart() {}

    static Findings check(RemoteSnapshotStore store, RemoteStoreConfig config) {
        String location = config.settings().location().toString();
        try {
            store.checkAccess();
        } catch (StoreException e) {
            LOG.log(WARNING, "snapshot store " + location + " is not usable now: " + e.getMessage()
                    + "; store operations will fail until it is, local snapshots work as usual");
            return new Findings(null, null);
        }
        try {
            store.checkRoundTrip();
        } catch (StoreDamagesDataException e) {
            RemoteStoreException unusable = new RemoteStoreException(RemoteStoreException.Kind.REFUSED, "snapshot store " + location
                    + " cannot be used: " + e.getMessage(), StoreOption.ENDPOINT.flag(), e);
            LOG.log(WARNING, unusable.detail() + "; store requests answer 502 until the daemon is restarted with a store that keeps "
                    + "what is written to it, local snapshots work as usual");
            return new Findings(unusable, null);
        } catch (StoreException e) {
            LOG.log(WARNING, "snapshot store " + location + " reachable, but writing and reading back a probe object failed: " + e.getMessage());
            return new Findings(null, null);
        }
        try {
            LeaseVerdicts.Established established = store.leaseVerdicts().establish(config.hostId());
            LeaseVerdict verdict = established.verdict();
            String probe = established.probe().map(p -> "conditional-write probe found " + p.conditionalWrites() + " (" + p.cost() + ")")
                    .orElse("not probed: a verdict other than HONOURED is final until an operator resets it (ateom store-reset-verdict)");
            String leases = config.settings().leases() == LeaseMode.OFF
                    ? "leases are off (--snapshot-store-leases=off): adopting takes no lease, keep two hosts from running one sandbox yourself"
                    : verdict.leasesSafe() ? "every sandbox holds its lease while it runs here (create, clone, resume and adopt take it; "
                    + "suspend and delete give it back)"
                    : "adopting is refused unless --snapshot-store-leases=off (leases need conditional writes every host can trust)";
            LOG.log(verdict.leasesSafe() || config.settings().leases() == LeaseMode.OFF ? INFO : WARNING,
                    "snapshot store " + location + " reachable (host " + config.hostId() + "); lease verdict " + verdict.describe() + "; "
                            + probe + "; " + leases + (config.pushOnSuspend() ? "; every suspend pushes" : ""));
            return new Findings(null, established.probe().orElse(null));
        } catch (IOException e) {
            LOG.log(WARNING, "snapshot store " + location + " reachable, but its lease verdict could not be established: " + e.getMessage());
            return new Findings(null, null);
        }
    }
}
