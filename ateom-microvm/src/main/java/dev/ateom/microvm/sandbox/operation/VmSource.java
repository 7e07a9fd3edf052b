package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.SnapshotCatalog;

/** Where a VM's memory comes from when it is brought up: a fresh boot, or a restore of a snapshot. */
sealed interface VmSource {
    record Boot() implements VmSource {}

    record Restore(SnapshotCatalog.SnapshotHandle snapshot) implements VmSource {}

    static VmSource boot() { return new Boot(); }

    static VmSource restore(SnapshotCatalog.SnapshotHandle snapshot) { return new Restore(snapshot); }
}
