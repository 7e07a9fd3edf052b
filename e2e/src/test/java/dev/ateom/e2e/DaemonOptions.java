package dev.ateom.e2e;

/**
 * How a test starts the daemon.
 *
 * @param crashAt               {@code ATEOM_TEST_CRASH_AT} (e.g. {@code suspend.archive}), or null for none
 * @param childrenDieWithDaemon {@code --children-die-with-daemon}
 */
record DaemonOptions(String crashAt, boolean childrenDieWithDaemon) {
    static final DaemonOptions NORMAL = new DaemonOptions(null, true);

    static DaemonOptions crashingAt(String point) { return new DaemonOptions(point, true); }

    static DaemonOptions keepingChildren() { return new DaemonOptions(null, false); }
}
