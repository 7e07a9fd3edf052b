package dev.ateom.microvm.operations;

/**
 * Decides which progress reports become events: every change of step, the first report of a step that carries bytes
 * (its total is news), the one that reaches the total, and other byte reports at most every {@link #MIN_INTERVAL_NANOS}
 * (the archive writer reports every 16 MiB, which on a fast disk is hundreds a second). A step shorter than the
 * interval so still shows its size and its end, not only its name.
 */
final class ProgressThrottle {
    static final long MIN_INTERVAL_NANOS = 100_000_000L;

    private String lastStep;
    private long lastAt;
    private boolean any;
    private boolean bytesShown;
    private boolean doneShown;

    /**
     * Whether a report of {@code step} at {@code nanos} (System.nanoTime) is published; if so it becomes the last one.
     *
     * @param bytesDone  the bytes done so far, null for a report without bytes (a step's start)
     * @param bytesTotal the bytes the step moves, null when unknown
     */
    synchronized boolean due(String step, Long bytesDone, Long bytesTotal, long nanos) {
        boolean newStep = !step.equals(lastStep);
        if (newStep) {
            bytesShown = false;
            doneShown = false;
        }
        boolean firstBytes = bytesDone != null && !bytesShown;
        boolean reachesTotal = bytesDone != null && bytesTotal != null && bytesDone >= bytesTotal && !doneShown;
        if (any && !newStep && !firstBytes && !reachesTotal && nanos - lastAt < MIN_INTERVAL_NANOS) return false;
        any = true;
        lastStep = step;
        lastAt = nanos;
        if (bytesDone != null) bytesShown = true;
        if (reachesTotal) doneShown = true;
        return true;
    }
}
