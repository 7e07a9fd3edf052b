package dev.ateom.microvm.remote;

import dev.ateom.microvm.sandbox.NotFoundException;
import dev.ateom.microvm.sandbox.PullFor;
import dev.ateom.store.LeaseMode;
import dev.ateom.store.LeaseVerdict;
import dev.ateom.store.LeasesUnavailableException;
import dev.ateom.store.RemoteManifest;
import dev.ateom.store.RemoteSnapshotStore;

import java.io.IOException;

/**
 * Refuses a pull before a byte is pulled when what it is for would be refused after it (docs/decisions.md, "Refuse
 * before pulling"): an adopt of a sandbox this host already has, or whose lease cannot be had (the store's lease verdict
 * is not HONOURED while leases are on, or another host holds it); a clone or resume of a sandbox whose lease another
 * host holds, where sandboxes hold their leases while they run. It only reads (the manifest, the verdict, the lease):
 * the lease itself is taken afterwards, as before, so a host that takes it in between still makes the operation fail
 * after the pull, and the pulled snapshot is removed then.
 */
final class PullAdmission {
    private final RemoteSnapshotStore store;
    private final String hostId;

    PullAdmission(RemoteSnapshotStore store, String hostId) {
        this.store = store;
        this.hostId = hostId;
    }

    /** @param leasesHeldWhileRunning whether a clone or resume will take its sandbox's lease */
    void check(String snapshotId, PullFor purpose, boolean leasesHeldWhileRunning) throws IOException {
        switch (purpose) {
            case PullFor.Adopt adopt -> {
                RemoteManifest manifest = store.describe(snapshotId).orElseThrow(() -> NotFoundException.snapshot(snapshotId));
                String sandboxId = manifest.localManifest().source().sandboxId();
                adopt.requireFreeHere().accept(sandboxId);
                if (store.settings().leases() == LeaseMode.OFF) return;
                LeaseVerdict verdict = store.leaseVerdicts().current(hostId); // probes first if no host recorded one
                if (!verdict.leasesSafe()) throw new LeasesUnavailableException(verdict);
                store.leases().requireNotHeldByAnother(sandboxId, hostId);
            }
            case PullFor.Sandbox sandbox -> {
                if (leasesHeldWhileRunning) store.leases().requireNotHeldByAnother(sandbox.sandboxId(), hostId);
            }
        }
    }
}
