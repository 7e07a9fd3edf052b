package dev.ateom.microvm.sandbox.operation;

/**
 * The resume and clone path as it was before issue 27, kept for one reason: a before/after in one benchmark run
 * ({@code scripts/bench.sh} starts one daemon each way and interleaves their cycles). Set by the JVM property
 * {@code -Dateom.baseline=before-issue-27} (e.g. in {@code ATEOM_JAVA_OPTS}); never needed otherwise. With it, every
 * record save is fsynced before it returns and a resume waits for its suspend's teardown before the restore dir
 * and the CHV claim, as before.
 */
final class SpeedBaseline {
    /** The property's value that selects the old path. */
    static final String BEFORE_ISSUE_27 = "before-issue-27";
    private static final boolean ACTIVE = BEFORE_ISSUE_27.equals(System.getProperty("ateom.baseline"));

    private SpeedBaseline() {}

    /** Whether this daemon runs the old path. */
    static boolean active() { return ACTIVE; }
}
