package dev.ateom.microvm.timing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Times the named steps of one operation, in order, for the API answer and the logs: each step's duration in ms, and
 * when it ran ({@link #trace}, in µs) for the log at DEBUG.
 */
public final class StepTimer {
    /** Synchronized: a step beside the others ends on its own thread. */
    private final Map<String, Long> millis = Collections.synchronizedMap(new LinkedHashMap<>());
    private final List<StepSpan> spans = Collections.synchronizedList(new ArrayList<>());
    private volatile long start = System.nanoTime();
    private final String operation;

    /** @param operation names the operation for {@link CrashPoints} and {@link FailPoints} ({@code create}, {@code suspend}, ...) */
    public StepTimer(String operation) { this.operation = operation; }

    public <T> T step(String name, Supplier<T> work) {
        CrashPoints.before(operation, name);
        FailPoints.before(operation, name);
        return timed(name, work, false);
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
        }, false);
    }

    /**
     * A step run on a virtual thread beside the caller's next steps (the caller joins it): its crash and fail point
     * fire here, before it starts; its time takes its place in the order where it started.
     */
    public <T> CompletableFuture<T> stepBeside(String name, Supplier<T> work) {
        CrashPoints.before(operation, name);
        FailPoints.before(operation, name);
        OperationProgress.current().step(name); // the thread it runs on does not carry the operation's progress
        millis.put(name, 0L);
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread.ofVirtual().name(operation + "-" + name).start(() -> {
            try {
                result.complete(timed(name, work, true));
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /**
     * A step that ran before this timer started, for the same operation (a clone's pull happens before its sandbox
     * exists): listed where it is added, and counted in the total.
     */
    public void before(String name, Duration took) {
        millis.put(name, took.toMillis());
        start -= took.toNanos();
    }

    /**
     * Work that is no step of its own (no crash or fail point: the saves of the sandbox's record), its time added up
     * under {@code name} beside the steps, so the answer shows how much of the operation it was.
     */
    public void account(String name, Runnable work) {
        long t0 = System.nanoTime();
        try {
            work.run();
        } finally {
            long t1 = System.nanoTime();
            spans.add(spanOf(name, t0, t1, false));
            millis.merge(name, (t1 - t0) / 1_000_000, Long::sum);
        }
    }

    /** A span that is not one step (a checkpoint's pause window covers several), reported beside the steps. */
    public void span(String name, long startNanos, long endNanos) {
        spans.add(spanOf(name, startNanos, endNanos, false));
        millis.put(name, (endNanos - startNanos) / 1_000_000);
    }

    private <T> T timed(String name, Supplier<T> work, boolean beside) {
        OperationProgress.current().step(name);
        long t0 = System.nanoTime();
        try {
            return work.get();
        } finally {
            long t1 = System.nanoTime();
            spans.add(spanOf(name, t0, t1, beside));
            // a step beside the others replaces its placeholder; a repeated step adds up
            millis.merge(name, (t1 - t0) / 1_000_000, Long::sum);
        }
    }

    private StepSpan spanOf(String name, long startNanos, long endNanos, boolean beside) {
        return new StepSpan(name, (startNanos - start) / 1000, (endNanos - startNanos) / 1000, beside);
    }

    /**
     * When each step so far ran, in the order they started (a repeated step once per run; a step that ran before this
     * timer, {@link #before}, is not in it).
     */
    public List<StepSpan> trace() {
        List<StepSpan> out;
        synchronized (spans) {
            out = new ArrayList<>(spans);
        }
        out.sort(Comparator.comparingLong(StepSpan::startMicros));
        return out;
    }

    /** The steps so far plus {@code total}. */
    public Map<String, Long> timings() {
        Map<String, Long> out;
        synchronized (millis) {
            out = new LinkedHashMap<>(millis);
        }
        out.put("total", (System.nanoTime() - start) / 1_000_000);
        return out;
    }

    public double elapsedSeconds() { return (System.nanoTime() - start) / 1e9; }
}
