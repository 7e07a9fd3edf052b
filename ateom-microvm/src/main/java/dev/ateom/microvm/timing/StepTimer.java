package dev.ateom.microvm.timing;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/** Times the named steps of one operation, in order, for the API answer and the logs. */
public final class StepTimer {
    /** Synchronized: a step beside the others ends on its own thread. */
    private final Map<String, Long> millis = Collections.synchronizedMap(new LinkedHashMap<>());
    private volatile long start = System.nanoTime();
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
                result.complete(timed(name, work));
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
            millis.merge(name, (System.nanoTime() - t0) / 1_000_000, Long::sum);
        }
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
            // a step beside the others replaces its placeholder; a repeated step adds up
            millis.merge(name, (System.nanoTime() - t0) / 1_000_000, Long::sum);
        }
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
