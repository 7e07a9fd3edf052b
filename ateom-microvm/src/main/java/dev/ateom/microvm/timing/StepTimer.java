package dev.ateom.microvm.timing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/** Times the named steps of one operation, in order, for the API answer and the logs. */
public final class StepTimer {
    private final Map<String, Long> millis = new LinkedHashMap<>();
    private final long start = System.nanoTime();
    private final String operation;

    /** @param operation names the operation for {@link CrashPoints} and {@link FailPoints} ({@code create}, {@code suspend}, ...) */
    public StepTimer(String operation) { this.operation = operation; }

    public <T> T step(String name, Supplier<T> work) {
        CrashPoints.before(operation, name);
        FailPoints.before(operation, name);
        return timed(name, work);
    }

    public void run(String name, Runnable work) {
        step(name, () -> {
            work.run();
            return null;
        });
    }

    /**
     * A step that by contract never throws (it logs what goes wrong), such as a teardown after a commit: timed and
     * a crash point, but no fail point, since a failure there is not a path the operation can take.
     */
    public void runUnfailing(String name, Runnable work) {
        CrashPoints.before(operation, name);
        timed(name, () -> {
            work.run();
            return null;
        });
    }

    /** A span that is not one step (a checkpoint's pause window covers several), reported beside the steps. */
    public void span(String name, long startNanos, long endNanos) {
        millis.put(name, (endNanos - startNanos) / 1_000_000);
    }

    private <T> T timed(String name, Supplier<T> work) {
        OperationProgress.current().step(name);
        long t0 = System.nanoTime();
        try {
            return work.get();
        } finally {
            millis.merge(name, (System.nanoTime() - t0) / 1_000_000, Long::sum);
        }
    }

    /** The steps so far plus {@code total}. */
    public Map<String, Long> timings() {
        Map<String, Long> out = new LinkedHashMap<>(millis);
        out.put("total", (System.nanoTime() - start) / 1_000_000);
        return out;
    }

    public double elapsedSeconds() { return (System.nanoTime() - start) / 1e9; }
}
