package dev.ateom.virtiofsd;

import java.util.Locale;
import java.util.Objects;

/**
 * Per-process knobs the daemon may tune; the share kind fixes everything that matters for correctness.
 *
 * @param sandbox        virtiofsd's isolation of itself ({@code --sandbox})
 * @param threadPoolSize {@code --thread-pool-size}; 0 disables the pool (virtiofsd 1.14's default)
 * @param logLevel       {@code --log-level}
 * @param dieWithDaemon  start virtiofsd with a parent-death signal (SIGKILL) so it dies with the daemon;
 *                       turn off when a restarted daemon must be able to adopt the running process
 */
public record ShareOptions(SandboxMode sandbox, int threadPoolSize, LogLevel logLevel, boolean dieWithDaemon) {

    public static final ShareOptions DEFAULT = new ShareOptions(SandboxMode.NAMESPACE, 0, LogLevel.INFO, true);

    public ShareOptions {
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(logLevel, "logLevel");
        if (threadPoolSize < 0) {
            throw new IllegalArgumentException("threadPoolSize must be >= 0, was " + threadPoolSize);
        }
    }

    public ShareOptions withDieWithDaemon(boolean value) {
        return new ShareOptions(sandbox, threadPoolSize, logLevel, value);
    }

    public ShareOptions withSandbox(SandboxMode value) {
        return new ShareOptions(value, threadPoolSize, logLevel, dieWithDaemon);
    }

    public enum SandboxMode {
        NAMESPACE, CHROOT, NONE;
        public String flagValue() { return name().toLowerCase(Locale.ROOT); }
    }

    public enum LogLevel {
        ERROR, WARN, INFO, DEBUG, TRACE, OFF;
        public String flagValue() { return name().toLowerCase(Locale.ROOT); }
    }
}
