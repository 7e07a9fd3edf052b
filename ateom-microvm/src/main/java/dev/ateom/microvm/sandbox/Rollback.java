package dev.ateom.microvm.sandbox;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The undo steps of an operation in progress. Each step that starts something registers how to stop it;
 * on failure {@link #run} undoes them newest first, and an undo that fails is logged and added to the
 * original error as suppressed, never hiding it.
 */
public final class Rollback {
    private static final System.Logger LOG = System.getLogger(Rollback.class.getName());
    private final Deque<Step> steps = new ArrayDeque<>();

    public void add(String description, Undo undo) { steps.push(new Step(description, undo)); }

    /** The operation succeeded: nothing to undo. */
    public void clear() { steps.clear(); }

    public void run(Throwable cause) {
        while (!steps.isEmpty()) {
            Step step = steps.pop();
            try {
                step.undo().run();
            } catch (Exception | Error e) {
                LOG.log(System.Logger.Level.WARNING, "rollback step '" + step.description() + "' failed: " + e);
                if (cause != null) cause.addSuppressed(e);
            }
        }
    }

    @FunctionalInterface
    public interface Undo {
        void run() throws Exception;
    }

    private record Step(String description, Undo undo) {}
}
