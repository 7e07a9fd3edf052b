package dev.ateom.microvm.timing;

import java.util.Set;

/**
 * Deliberate crashes for recovery tests: with {@code -Dateom.test.crashAt=suspend.archive} (or
 * {@code ATEOM_TEST_CRASH_AT}) the daemon halts at once, like {@code kill -9} (no shutdown hooks, no
 * cleanup), right before that step of that operation. Several points may be given, comma separated.
 * Unset in production: the check is one lookup of an empty set.
 */
public final class CrashPoints {
    private static final Set<String> POINTS = StepPoints.parse(System.getProperty("ateom.test.crashAt", System.getenv("ATEOM_TEST_CRASH_AT")));

    private CrashPoints() {}

    public static void before(String operation, String step) {
        if (!POINTS.isEmpty() && POINTS.contains(operation + "." + step)) {
            System.err.println("ateom: crash point " + operation + "." + step + " reached, halting");
            Runtime.getRuntime().halt(137);
        }
    }
}
