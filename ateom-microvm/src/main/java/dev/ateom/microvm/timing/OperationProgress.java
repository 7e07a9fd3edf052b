package dev.ateom.microvm.timing;

import java.util.concurrent.Callable;

/**
 * Where a long operation tells how far it got, for {@code ?async=true} callers: the step it is in, bytes done of a
 * total on the byte-heavy steps, and the moment it was admitted (its checks passed and it holds the sandbox, so
 * from here on a failure is the operation's, not the request's). The operation's thread carries it in a scoped
 * value, so the sandbox code reports without knowing who listens; a synchronous call listens with {@link #NONE}.
 */
public interface OperationProgress {
    OperationProgress NONE = new OperationProgress() { };

    /** Bound on the thread that runs one asynchronous operation. */
    ScopedValue<OperationProgress> CURRENT = ScopedValue.newInstance();

    /**
     * The operation passed its checks and runs on sandbox {@code sandboxId} (a clone's new one); called once or more,
     * only the first call counts (a fork is admitted by its checkpoint).
     */
    default void admitted(String sandboxId) { }

    /** A step of the operation begins ({@link StepTimer}'s names). */
    default void step(String name) { }

    /** Bytes done of the current step; {@code total} is -1 when unknown. */
    default void bytes(long done, long total) { }

    /** What the current thread reports to: {@link #NONE} outside an asynchronous operation. */
    static OperationProgress current() { return CURRENT.orElse(NONE); }

    /** Runs {@code work} reporting to {@code progress}. */
    static <T> T reportingTo(OperationProgress progress, Callable<T> work) throws Exception {
        return ScopedValue.where(CURRENT, progress).call(work::call);
    }
}
