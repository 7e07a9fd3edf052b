package dev.ateom.microvm.runtime;

import dev.ateom.snapshot.MemoryRangesOverlay;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Makes the snapshot of a VM that was restored with {@code OnDemand} memory self-contained, whatever the
 * CHV version does. CHV v54 writes the complete memory (dense; the commit punches the zero pages out again,
 * see chv-samples/ondemand-restore.md); older versions were reported to write only the pages faulted since
 * the restore, a sparse delta whose holes mean "as in the snapshot restored from". For those the holes are
 * filled from that source before the commit punches zero pages, so no snapshot ever depends on another.
 */
public final class OnDemandSnapshotCompletion {
    /** The first version measured to write complete snapshots after an OnDemand restore. */
    static final int FIRST_COMPLETE_MAJOR = 54;
    private static final System.Logger LOG = System.getLogger(OnDemandSnapshotCompletion.class.getName());

    private OnDemandSnapshotCompletion() {}

    /** Whether a snapshot taken by this CHV version after an OnDemand restore may be a delta. Unknown versions count as delta. */
    public static boolean writesDelta(String chvVersion) {
        return major(chvVersion).map(major -> major < FIRST_COMPLETE_MAJOR).orElse(true);
    }

    /**
     * @param memoryRanges the new snapshot's memory-ranges, before commit
     * @param restoredFrom the memory-ranges the running VM was restored from with OnDemand, if it was
     * @return whether holes were filled
     */
    public static boolean complete(Path memoryRanges, Optional<Path> restoredFrom, String chvVersion) {
        if (restoredFrom.isEmpty() || !writesDelta(chvVersion)) return false;
        try {
            MemoryRangesOverlay.fillHolesFrom(restoredFrom.get(), memoryRanges);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot complete the OnDemand delta " + memoryRanges + " from " + restoredFrom.get(), e);
        }
        LOG.log(System.Logger.Level.INFO, "filled the holes of " + memoryRanges + " from " + restoredFrom.get()
                + " (CHV " + chvVersion + " writes deltas after OnDemand restores)");
        return true;
    }

    private static Optional<Integer> major(String version) {
        if (version == null) return Optional.empty();
        String v = version.startsWith("v") ? version.substring(1) : version;
        int dot = v.indexOf('.');
        try {
            return Optional.of(Integer.parseInt(dot < 0 ? v : v.substring(0, dot)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
