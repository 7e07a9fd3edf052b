package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.timing.OperationProgress;
import dev.ateom.snapshot.ArchiveProgress;

import java.nio.file.Path;

/** Where the progress of a durable archive or extraction goes: the log for long ones, and the asynchronous operation's bytes. */
final class ArchiveProgressReports {
    private static final System.Logger LOG = System.getLogger(ArchiveProgressReports.class.getName());
    private static final long LOG_STEP = 256L << 20;

    private ArchiveProgressReports() {}

    /** Long archives show progress: a log line every 256 MiB. */
    static ArchiveProgress log(String snapshotId) {
        long[] next = {LOG_STEP};
        return (bytes, entries) -> {
            if (bytes >= next[0]) {
                next[0] = bytes + LOG_STEP;
                LOG.log(System.Logger.Level.INFO, "snapshot " + snapshotId + ": archived " + (bytes >> 20) + " MiB in " + entries + " entries");
            }
        };
    }

    /** An asynchronous operation also sees the archive's bytes, of a total counted first (see {@link DurableSizeEstimate}). */
    static ArchiveProgress alsoToOperation(ArchiveProgress log, Path durableDir) {
        if (OperationProgress.current() == OperationProgress.NONE) return log;
        ArchiveProgress operation = toOperation(DurableSizeEstimate.of(durableDir));
        return (bytes, entries) -> {
            log.onProgress(bytes, entries);
            operation.onProgress(bytes, entries);
        };
    }

    /** The current operation's bytes of the step, of {@code total} (-1: unknown). */
    static ArchiveProgress toOperation(long total) {
        OperationProgress operation = OperationProgress.current();
        return operation == OperationProgress.NONE ? ArchiveProgress.NONE : (bytes, entries) -> operation.bytes(bytes, total);
    }
}
