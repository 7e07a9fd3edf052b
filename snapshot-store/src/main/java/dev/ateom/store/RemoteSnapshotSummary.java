package dev.ateom.store;

import java.time.Instant;

/** A snapshot in the store as the listing shows it (no manifest read). */
public record RemoteSnapshotSummary(String snapshotId, Instant pushedAt, long manifestBytes) {
}
