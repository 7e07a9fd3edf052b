package dev.ateom.microvm.timing;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Deliberate failures for failure-path tests, beside {@link CrashPoints}: where a crash point halts the
 * daemon, a fail point throws {@link InjectedFailure} right before that step of that operation, so the
 * operation's own failure handling runs (rollback, state after the failure, problem answer). Each point fails
 * once and is then spent, so the retry a test makes next runs through. Points come from
 * {@code -Dateom.test.failAt=suspend.archive} (or {@code ATEOM_TEST_FAIL_AT}), comma separated, or from
 * {@link #failOnce} in a test that runs the daemon in its own JVM. Unset in production: the check is one
 * lookup of an empty set.
 */
public final class FailPoints {
    private static final Set<String> ARMED = ConcurrentHashMap.newKeySet();

    static {
        ARMED.addAll(StepPoints.parse(System.getProperty("ateom.test.failAt", System.getenv("ATEOM_TEST_FAIL_AT"))));
    }

    private FailPoints() {}

    /** Makes the next run of {@code point} ({@code operation.step}) fail. */
    public static void failOnce(String point) { ARMED.add(point); }

    /** Disarms every point not reached yet. */
    public static void disarmAll() { ARMED.clear(); }

    public static void before(String operation, String step) {
        if (!ARMED.isEmpty() && ARMED.remove(operation + "." + step)) throw new InjectedFailure(operation + "." + step);
    }

    /** What a fail point throws: an error the operation did not expect, like any other. */
    public static final class InjectedFailure extends RuntimeException {
        InjectedFailure(String point) {
            super("fail point " + point + " reached");
        }
    }
}
