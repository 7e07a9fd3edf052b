package dev.ateom.store;

import dev.ateom.snapshot.Snapshot;
import java.util.List;

/**
 * A pulled snapshot, committed in the local store and verified.
 *
 * @param alreadyLocal     the snapshot was already on this host; nothing was transferred
 * @param allowedMismatches host differences the caller allowed (empty when the host matches)
 */
public record PullResult(Snapshot snapshot, PullStatus status, boolean alreadyLocal, List<HostMismatch> allowedMismatches) {
}
