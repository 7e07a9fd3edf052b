package dev.ateom.e2e;

import java.util.List;

/**
 * How a test starts the daemon.
 *
 * @param crashAt               {@code ATEOM_TEST_CRASH_AT} (e.g. {@code suspend.archive}), or null for none
 * @param childrenDieWithDaemon {@code --children-die-with-daemon}
 * @param flags                 more flags and their values, in order (e.g. the network options)
 */
record DaemonOptions(String crashAt, boolean childrenDieWithDaemon, List<String> flags) {
    DaemonOptions(String crashAt, boolean childrenDieWithDaemon) {
        this(crashAt, childrenDieWithDaemon, List.of());
    }

    DaemonOptions {
        flags = List.copyOf(flags);
    }

    static final DaemonOptions NORMAL = new DaemonOptions(null, true);

    static DaemonOptions crashingAt(String point) { return new DaemonOptions(point, true); }

    static DaemonOptions keepingChildren() { return new DaemonOptions(null, false); }

    DaemonOptions withFlags(List<String> more) { return new DaemonOptions(crashAt, childrenDieWithDaemon, more); }
}
