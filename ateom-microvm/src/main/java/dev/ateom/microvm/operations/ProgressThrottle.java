package dev.ateom.microvm.operations;

/**
 * Decides which progress reports become events: every change of step, and bytes at most every
 * {@link #MIN_INTERVAL_NANOS} (the archive writer reports every 16 MiB, which on a fast disk is hundreds a second).
 */
final class ProgressThrottle {
    static final long MIN_INTERVAL_NANOS = 100_000_000L;

    private String lastStep;
    private long lastAt;
    private boolean any;

    /** Whether a report of {@code step} at {@code nanos} (System.nanoTime) is published; if so it becomes the last one. */
    synchronized boolean due(String step, long nanos) {
        boolean newStep = !step.equals(lastStep);
        if (any && !newStep && nanos - lastAt < MIN_INTERVAL_NANOS) return false;
        any = true;
        lastStep = step;
        lastAt = nanos;
        return true;
    }
}
