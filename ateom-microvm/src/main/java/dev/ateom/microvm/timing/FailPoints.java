package dev.ateom.microvm.timing;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Deliberate failures for failure-path tests, beside {@link CrashPoints}: where a crash point halts the
 * daemon, a fail point throws {@link InjectedFailure} right before that step of that operation, so the
 * operation's own failure handling runs (rollback, state after the failure, problem answer). Each point fails
 * once and is then spent, so the retry a test makes next runs through. Points come from
 * {@code -Dateom.test.failAt=suspend.archive} (or {@code ATEOM_TEST_FAIL_AT}), comma separated, or from
 * {@link #failOnce} in a test that runs the daemon in its own JVM. A test may instead make something happen there
 * ({@link #runOnce}: a process the operation relies on dying at that moment). Unset in production: the check is two
 * lookups of empty collections.
 */
public final class FailPoints {
    private static final Set<String> ARMED = ConcurrentHashMap.newKeySet();
    private static final Map<String, Runnable> ACTIONS = new ConcurrentHashMap<>();

    static {
        ARMED.addAll(StepPoints.parse(System.getProperty("ateom.test.failAt", System.getenv("ATEOM_TEST_FAIL_AT"))));
    }

    private FailPoints() {}

    /** Makes the next run of {@code point} ({@code operation.step}) fail. */
    public static void failOnce(String point) { ARMED.add(point); }

    /** Runs {@code action} right before the next run of {@code point} ({@code operation.step}), on the operation's thread. */
    public static void runOnce(String point, Runnable action) { ACTIONS.put(point, action); }

    /** Disarms every point not reached yet. */
    public static void disarmAll() {
        ARMED.clear();
        ACTIONS.clear();
    }

    public static void before(String operation, String step) {
        if (!ACTIONS.isEmpty()) {
            Runnable action = ACTIONS.remove(operation + "." + step);
            if (action != null) action.run();
        }
        if (!ARMED.isEmpty() && ARMED.remove(operation + "." + step)) throw new InjectedFailure(operation + "." + step);
    }

    /** What a fail point throws: an error the operation did not expect, like any other. */
    public static final class InjectedFailure extends RuntimeException {
        InjectedFailure(String point) {
            super("fail point " + point + " reached");
        }
    }
}
