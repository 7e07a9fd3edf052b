package dev.ateom.microvm.systeminfo;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The pure step of {@link SystemInfoSync}'s loop, apart from its scheduling (as Jetty's Scanner keeps its diff
 * apart from its timer): given the time and each volume's marks, which volumes to sync now and why, and when to
 * look again. Times are {@link System#nanoTime()} values, so a test drives it with a clock of its own.
 */
final class SyncPlanner {
    private SyncPlanner() {}

    enum Reason { EVENT, RETRY, RECONCILE }

    /**
     * What the loop knows of one volume.
     *
     * @param dirtySince   when the first event of an unsynced burst arrived; 0 when clean
     * @param retryPending its last sync failed, or a directory could not be watched: look again at {@code nextRetry}
     */
    record Marks(long dirtySince, boolean retryPending, long nextRetry) {}

    /** One volume to sync: why, and since when its source is known to have changed (0: not known to). */
    record Task(Reason reason, long observedAt) {}

    /**
     * @param due           the volumes to sync now, in the order given
     * @param wakeAt        when to plan again if nothing happens before (an event or a request wakes the loop early)
     * @param reconciles    whether this plan is a reconciliation pass (the request for one is then served)
     * @param nextReconcile when the next reconciliation pass is due
     */
    record Plan<K>(Map<K, Task> due, long wakeAt, boolean reconciles, long nextReconcile) {}

    static <K> Plan<K> plan(long now, boolean reconcileRequested, long nextReconcile, Map<K, Marks> volumes,
                            Duration coalesceWindow, Duration reconcileInterval) {
        Map<K, Task> due = new LinkedHashMap<>();
        boolean reconciles = reconcileRequested || now - nextReconcile >= 0;
        if (reconciles) {
            nextReconcile = now + reconcileInterval.toNanos();
            volumes.forEach((volume, marks) -> due.put(volume, new Task(Reason.RECONCILE, marks.dirtySince())));
        }
        long wakeAt = nextReconcile;
        for (var entry : volumes.entrySet()) {
            Marks marks = entry.getValue();
            if (marks.dirtySince() != 0) {
                long settled = marks.dirtySince() + coalesceWindow.toNanos();
                if (now - settled >= 0) {
                    due.putIfAbsent(entry.getKey(), new Task(Reason.EVENT, marks.dirtySince()));
                } else {
                    wakeAt = earlier(wakeAt, settled);
                }
            }
            if (marks.retryPending()) {
                if (now - marks.nextRetry() >= 0) {
                    due.putIfAbsent(entry.getKey(), new Task(Reason.RETRY, marks.dirtySince()));
                } else {
                    wakeAt = earlier(wakeAt, marks.nextRetry());
                }
            }
        }
        return new Plan<>(due, wakeAt, reconciles, nextReconcile);
    }

    private static long earlier(long a, long b) {
        return a - b <= 0 ? a : b;
    }
}
