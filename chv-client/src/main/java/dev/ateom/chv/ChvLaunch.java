package dev.ateom.chv;

import java.nio.file.Path;
import java.time.Duration;
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
 */
public record ChvLaunch(Path binary, Path apiSocket, Path logFile, Path outputFile, int verbosity, Duration readyTimeout,
                        Map<String, String> environment, boolean dieWithDaemon) {
    public ChvLaunch {
        environment = environment == null ? Map.of() : Map.copyOf(environment);
        readyTimeout = readyTimeout == null ? Duration.ofSeconds(10) : readyTimeout;
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
        return new ChvLaunch(binary, apiSocket, logFile, outputFile, verbosity, readyTimeout, env, dieWithDaemon);
    }

    public ChvLaunch withReadyTimeout(Duration timeout) {
        return new ChvLaunch(binary, apiSocket, logFile, outputFile, verbosity, timeout, environment, dieWithDaemon);
    }

    public ChvLaunch withDieWithDaemon(boolean value) {
        return new ChvLaunch(binary, apiSocket, logFile, outputFile, verbosity, readyTimeout, environment, value);
    }
}
