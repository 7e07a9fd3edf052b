package dev.ateom.chv;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How to start one Cloud Hypervisor process.
 *
 * @param binary       the {@code cloud-hypervisor} executable (or the stand-in's {@code fixtures/bin/chv-standin})
 * @param apiSocket    {@code --api-socket}; at most 107 bytes, must not exist yet
 * @param logFile      {@code --log-file} for CHV's own log, or null to let it log to stderr
 * @param outputFile   where the process's stdout and stderr are appended
 * @param verbosity    number of {@code -v} flags
 * @param readyTimeout how long to wait for {@code vmm.ping} to answer
 * @param environment  extra environment variables (e.g. {@code ATEOM_STANDIN_BACKEND} for the stand-in)
 * @param dieWithDaemon whether CHV gets SIGKILL when this JVM dies (parent-death signal); false lets it outlive
 *                      the daemon, for a restarted daemon to adopt
 * @param jail         the jail launcher's argv up to and including its {@code --}, or empty to start CHV unjailed; the
 *                     launcher then sets the parent-death signal itself (its {@code --die-with-parent})
 */
public record ChvLaunch(Path binary, Path apiSocket, Path logFile, Path outputFile, int verbosity, Duration readyTimeout,
                        Map<String, String> environment, boolean dieWithDaemon, List<String> jail) {
    public ChvLaunch {
        environment = environment == null ? Map.of() : Map.copyOf(environment);
        readyTimeout = readyTimeout == null ? Duration.ofSeconds(10) : readyTimeout;
        jail = jail == null ? List.of() : List.copyOf(jail);
        if (!jail.isEmpty() && !jail.getLast().equals("--")) throw new IllegalArgumentException("a jail prefix ends with --: " + jail);
    }

    /** An unjailed launch. */
    public ChvLaunch(Path binary, Path apiSocket, Path logFile, Path outputFile, int verbosity, Duration readyTimeout,
                     Map<String, String> environment, boolean dieWithDaemon) {
        this(binary, apiSocket, logFile, outputFile, verbosity, readyTimeout, environment, dieWithDaemon, List.of());
    }

    /** A launch whose CHV dies with the daemon. */
    public ChvLaunch(Path binary, Path apiSocket, Path logFile, Path outputFile, int verbosity, Duration readyTimeout,
                     Map<String, String> environment) {
        this(binary, apiSocket, logFile, outputFile, verbosity, readyTimeout, environment, true);
    }

    /** {@code binary --api-socket <apiSocket> -v --log-file <runDir>/chv.log}, output to {@code <runDir>/chv.out}. */
    public static ChvLaunch inRunDir(Path binary, Path runDir) {
        return new ChvLaunch(binary, runDir.resolve("api.sock"), runDir.resolve("chv.log"), runDir.resolve("chv.out"), 1,
                Duration.ofSeconds(10), Map.of());
    }

    public ChvLaunch withEnvironment(Map<String, String> env) {
        return new ChvLaunch(binary, apiSocket, logFile, outputFile, verbosity, readyTimeout, env, dieWithDaemon, jail);
    }

    public ChvLaunch withReadyTimeout(Duration timeout) {
        return new ChvLaunch(binary, apiSocket, logFile, outputFile, verbosity, timeout, environment, dieWithDaemon, jail);
    }

    public ChvLaunch withDieWithDaemon(boolean value) {
        return new ChvLaunch(binary, apiSocket, logFile, outputFile, verbosity, readyTimeout, environment, value, jail);
    }

    /** The same launch inside a jail: {@code prefix} is the launcher's argv up to its {@code --}. */
    public ChvLaunch withJail(List<String> prefix) {
        return new ChvLaunch(binary, apiSocket, logFile, outputFile, verbosity, readyTimeout, environment, dieWithDaemon, prefix);
    }

    public boolean jailed() {
        return !jail.isEmpty();
    }
}
