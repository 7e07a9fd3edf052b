package dev.ateom.microvm.vm;

import dev.ateom.snapshot.MemoryRangesCompleteness;
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
    private static final System.Logger LOG = System.getLogger(OnDemandSnapshotCompletion.class.getName());

    private OnDemandSnapshotCompletion() {}

    /**
     * Whether a snapshot taken by this CHV version after an OnDemand restore may be a delta
     * ({@link MemoryRangesCompleteness}). A version that cannot be read counts as one: a delta taken for complete
     * loses every page the guest did not touch since the restore, the other mistake at most pages it zeroed.
     */
    public static boolean writesDelta(String chvVersion) {
        try {
            return MemoryRangesCompleteness.of(chvVersion == null ? "" : chvVersion, true) == MemoryRangesCompleteness.SPARSE_DELTA;
        } catch (IllegalArgumentException unreadable) {
            return true;
        }
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
}
