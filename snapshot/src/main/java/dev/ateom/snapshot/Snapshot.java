package dev.ateom.snapshot;

/** A committed snapshot: its id, where its files are, and its manifest. */
public record Snapshot(String id, SnapshotLayout layout, Manifest manifest) {
}
