package dev.ateom.microvm.logging;

import java.util.logging.LogManager;

/**
 * The JDK's log manager resets (removes every handler) from its own shutdown hook, racing the daemon's hook,
 * so "shutting down" and "stopped" were often lost. This manager ignores that one reset: the handlers
 * flush on every record anyway. Installed by {@link dev.ateom.microvm.Main} before anything logs.
 */
public final class DaemonLogManager extends LogManager {
    private static final String JDK_SHUTDOWN_THREAD = "java.util.logging.LogManager$Cleaner";

    @Override
    public void reset() {
        if (Thread.currentThread().getClass().getName().equals(JDK_SHUTDOWN_THREAD)) return;
        super.reset();
    }
}
