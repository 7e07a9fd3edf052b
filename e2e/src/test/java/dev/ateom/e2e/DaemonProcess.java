package dev.ateom.e2e;

import dev.ateom.fixtures.wait.Eventually;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code bin/ateom daemon} as a child process on a random port, with its state and run dirs under one test
 * root, the CHV stand-in ({@code none} backend) and real virtiofsd. Every start appends to its own log file.
 */
final class DaemonProcess implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final Path log;
    private final DaemonApi api;
    private final DaemonOptions options;
    private volatile boolean stoppedOnTerm;

    private DaemonProcess(Process process, Path log, DaemonApi api, DaemonOptions options) {
        this.process = process;
        this.log = log;
        this.api = api;
        this.options = options;
    }

    static DaemonProcess start(Path root, DaemonOptions options) throws IOException, InterruptedException {
        Files.createDirectories(root);
        Path config = root.resolve("empty.yaml");
        if (!Files.exists(config)) Files.writeString(config, "");
        int generation = 1;
        while (Files.exists(root.resolve("daemon-" + generation + ".log"))) generation++;
        Path log = root.resolve("daemon-" + generation + ".log");
        Path portFile = root.resolve("port");
        Files.deleteIfExists(portFile);

        List<String> command = new ArrayList<>(List.of(E2ePaths.ateomCommand().toString(), "daemon",
                "--port", "0", "--port-file", portFile.toString(),
                "--state-dir", stateDir(root).toString(), "--run-dir", runDir(root).toString(),
                "--cloud-hypervisor", E2ePaths.standIn().toString(), "--virtiofsd", E2ePaths.virtiofsd().toString(),
                "--config", config.toString(), "--image-roots", SandboxSpecs.imageDir(root).toString(),
                "--children-die-with-daemon", Boolean.toString(options.childrenDieWithDaemon())));
        command.addAll(options.flags());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        // the daemon reads ATEOM_* from its environment: only what this test means may reach it
        builder.environment().keySet().removeIf(name -> name.startsWith("ATEOM_"));
        builder.environment().put("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64");
        if (options.crashAt() != null) builder.environment().put("ATEOM_TEST_CRASH_AT", options.crashAt());
        Process process = builder.start();

        try {
            Eventually.until(START_TIMEOUT, () -> {
                if (!process.isAlive()) {
                    throw new AssertionError("daemon exited with " + process.exitValue() + " before listening; log: " + tail(log));
                }
                return Files.exists(portFile);
            }, "the daemon to write its port file", () -> tail(log));
        } catch (AssertionError e) {
            process.destroyForcibly();
            throw e;
        }
        int port = Integer.parseInt(Files.readString(portFile).strip());
        String token = Files.readString(stateDir(root).resolve("api-token")).strip();
        return new DaemonProcess(process, log, new DaemonApi(port, token), options);
    }

    static Path stateDir(Path root) { return root.resolve("state"); }

    static Path runDir(Path root) { return root.resolve("run"); }

    DaemonApi api() { return api; }

    long pid() { return process.pid(); }

    boolean isAlive() { return process.isAlive(); }

    /** Waits for the exit a crash point causes ({@code Runtime.halt(137)}); its exit code. */
    int awaitCrash() throws InterruptedException {
        if (!process.waitFor(30, TimeUnit.SECONDS)) throw new IllegalStateException("daemon did not halt at its crash point");
        return process.exitValue();
    }

    /** SIGKILL, as {@code kill -9}: no shutdown hook runs. */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, then SIGKILL if the clean stop takes too long. */
    @Override
    public void close() throws InterruptedException {
        if (!process.isAlive()) return;
        process.destroy();
        if (process.waitFor(20, TimeUnit.SECONDS)) stoppedOnTerm = true;
        else kill9();
    }

    /**
     * Whether {@link #close} stopped it cleanly with its children dying with it: then it had to remove everything it
     * made on the host (a killed daemon, or one whose VMMs outlive it, leaves its cgroups to the next start).
     */
    boolean cleanedUpAtStop() { return stoppedOnTerm && options.childrenDieWithDaemon(); }

    /** The last lines of the daemon's log, for failure messages. */
    String logTail() { return tail(log); }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }
}
