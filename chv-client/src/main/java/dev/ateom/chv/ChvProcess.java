package dev.ateom.chv;

import dev.ateom.process.ChildLauncher;
import dev.ateom.process.ParentDeathSignalUnavailableException;
import dev.ateom.process.ProcessKill;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One running Cloud Hypervisor process: started with {@code --api-socket}, ready once {@code vmm.ping}
 * answers, stopped gracefully ({@code vmm.shutdown}) or killed.
 *
 * <p>Children die with the daemon: {@link ChildLauncher} starts each behind a parent-death signal, or refuses
 * to start it when the signal cannot be had. A launch with {@link ChvLaunch#dieWithDaemon()} false outlives the
 * daemon on purpose, for a restarted daemon to adopt. A jailed launch ({@link ChvLaunch#jail()}) starts the jail
 * launcher, which stays CHV's parent: {@link #pid()} is the launcher's, whose only child is CHV.
 */
public final class ChvProcess implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ChvProcess.class.getName());
    /** How long a SIGKILLed process (or one it started) gets to be gone before a warning. */
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);

    private final ChvLaunch launch;
    private final Process process;
    private final ChvClient client;
    private final VmmPingResponse readyPing;

    private ChvProcess(ChvLaunch launch, Process process, ChvClient client, VmmPingResponse readyPing) {
        this.launch = launch;
        this.process = process;
        this.client = client;
        this.readyPing = readyPing;
    }

    /**
     * Starts CHV and waits until it answers {@code vmm.ping}. On any failure the process is killed and the
     * exception carries the tail of its output.
     */
    public static ChvProcess start(ChvLaunch launch) {
        String what = "start " + launch.binary() + " --api-socket " + launch.apiSocket();
        checkLaunchable(what, launch);
        Process process = fork(what, launch);
        var client = new ChvClient(launch.apiSocket());
        VmmPingResponse readyPing;
        try {
            readyPing = awaitReady(what, launch, process, client);
        } catch (RuntimeException e) {
            // also when interrupted (a pool closing): the caller may check right after that nothing it started lives
            if (!ProcessKill.killTree(process, KILL_WAIT)) {
                e.addSuppressed(new ChvTransportException(what, "pid " + process.pid() + " or a process it started still runs "
                        + KILL_WAIT.toSeconds() + " s after SIGKILL", null));
            }
            client.close();
            throw e;
        }
        LOG.log(System.Logger.Level.INFO, "CHV pid {0} ready on {1}", String.valueOf(process.pid()), launch.apiSocket());
        return new ChvProcess(launch, process, client, readyPing);
    }

    private static void checkLaunchable(String what, ChvLaunch launch) {
        if (!Files.isExecutable(launch.binary())) {
            throw new ChvTransportException(what, "binary " + launch.binary() + " is not an executable file", null);
        }
        if (launch.apiSocket().toString().getBytes(StandardCharsets.UTF_8).length > 107) {
            throw new ChvTransportException(what, "api socket path longer than 107 bytes: " + launch.apiSocket(), null);
        }
        if (Files.exists(launch.apiSocket())) {
            throw new ChvTransportException(what, "api socket " + launch.apiSocket() + " already exists (another CHV, or a stale file)", null);
        }
        if (!Files.isDirectory(launch.apiSocket().toAbsolutePath().getParent())) {
            throw new ChvTransportException(what, "directory of api socket " + launch.apiSocket() + " does not exist", null);
        }
    }

    private static Process fork(String what, ChvLaunch launch) {
        List<String> command = new ArrayList<>();
        command.add(launch.binary().toString());
        command.addAll(List.of("--api-socket", launch.apiSocket().toString()));
        for (int i = 0; i < launch.verbosity(); i++) {
            command.add("-v");
        }
        if (launch.logFile() != null) {
            command.addAll(List.of("--log-file", launch.logFile().toString()));
        }
        if (launch.jailed()) {
            List<String> jailed = new ArrayList<>(launch.jail());
            jailed.addAll(command);
            command = jailed;
        }
        var builder = new ProcessBuilder(command).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        builder.redirectOutput(launch.outputFile() == null ? ProcessBuilder.Redirect.DISCARD
                : ProcessBuilder.Redirect.appendTo(launch.outputFile().toFile()));
        builder.environment().putAll(launch.environment());
        try {
            // a jailed CHV's launcher sets its own parent-death signal (a wrapper's would be cleared by its uid change)
            return ChildLauncher.start(builder, launch.dieWithDaemon() && !launch.jailed());
        } catch (IOException | ParentDeathSignalUnavailableException e) {
            throw new ChvTransportException(what, "cannot start: " + e.getMessage(), e);
        }
    }

    private static VmmPingResponse awaitReady(String what, ChvLaunch launch, Process process, ChvClient client) {
        long deadline = System.nanoTime() + launch.readyTimeout().toNanos();
        ChvException last = null;
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                throw new ChvTransportException(what, "exited with " + process.exitValue() + " before answering vmm.ping; output: "
                        + outputTail(launch), null);
            }
            if (Files.exists(launch.apiSocket())) {
                try {
                    return client.ping();
                } catch (ChvTransportException | ChvTimeoutException e) {
                    last = e;
                }
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ChvTransportException(what, "interrupted while waiting for vmm.ping", e);
            }
        }
        throw new ChvTransportException(what, "no vmm.ping answer within " + launch.readyTimeout().toMillis() + " ms"
                + (last == null ? "" : " (last: " + last.getMessage() + ")") + "; output: " + outputTail(launch), last);
    }

    private static String outputTail(ChvLaunch launch) {
        if (launch.outputFile() == null || !Files.exists(launch.outputFile())) {
            return "(none)";
        }
        try {
            List<String> lines = Files.readAllLines(launch.outputFile(), StandardCharsets.UTF_8);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    /**
     * This process after its caller renamed its API socket (and log files) to the paths of {@code moved}: a warm,
     * idle CHV handed to a sandbox keeps running, only its client now dials the new path. This instance's client
     * is closed; use the returned one from now on.
     */
    public ChvProcess movedTo(ChvLaunch moved) {
        client.close();
        return new ChvProcess(moved, process, new ChvClient(moved.apiSocket()), readyPing);
    }

    /**
     * The version this process answered {@code vmm.ping} with when it became ready: a process's version never changes,
     * so a snapshot's manifest takes it from here instead of asking again on the suspend's path.
     */
    public String version() {
        return readyPing.version();
    }

    /** The client for this process's API socket. */
    public ChvClient client() {
        return client;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public ChvLaunch launch() {
        return launch;
    }

    /** Waits up to {@code timeout} for the process to exit; its exit code, or empty if still running. */
    public Optional<Integer> awaitExit(Duration timeout) {
        try {
            if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return Optional.of(process.exitValue());
            }
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** Future completed with the exit code when the process exits (for watchers). */
    public CompletableFuture<Integer> onExit() {
        return process.onExit().thenApply(Process::exitValue);
    }

    /**
     * SIGKILL to the process and to everything it started, then waits until all are gone. Real CHV starts no
     * processes of its own; the QEMU-backed stand-in does, and its QEMU (which holds the guest's TAP) must be gone
     * too before the caller may reuse what the VM held: its death signal from the stand-in comes asynchronously.
     */
    public void kill() {
        if (!ProcessKill.killTree(process, KILL_WAIT)) {
            LOG.log(System.Logger.Level.WARNING, "CHV pid {0} or a process it started still runs {1} s after SIGKILL",
                    String.valueOf(process.pid()), KILL_WAIT.toSeconds());
        }
        client.close();
        removeStaleSocket();
    }

    /**
     * {@link #kill} for a CHV this JVM did not start (adopted after a daemon restart): SIGKILL to it and what it
     * started, then waits until all are gone or zombies (which hold no descriptors any more).
     */
    public static void killTree(ProcessHandle chv) {
        if (!ProcessKill.killTree(chv, KILL_WAIT)) {
            LOG.log(System.Logger.Level.WARNING, "CHV pid {0} or a process it started still runs {1} s after SIGKILL",
                    String.valueOf(chv.pid()), KILL_WAIT.toSeconds());
        }
    }

    /**
     * The API socket of an exited CHV: it unlinks its own only on a clean exit, and only at the path it was started
     * with (a pooled CHV's socket was moved since), so the launcher does.
     */
    private void removeStaleSocket() {
        try {
            Files.deleteIfExists(launch.apiSocket());
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot remove the API socket {0} of exited CHV pid {1}: {2}", launch.apiSocket(),
                    String.valueOf(process.pid()), e.getMessage());
        }
    }

    /**
     * {@code vmm.shutdown} and wait up to {@code grace} for the exit; kills it if it does not answer or exit.
     * Returns the exit code (137 when killed).
     */
    public int stop(Duration grace) {
        if (process.isAlive()) {
            try {
                client.shutdownVmm();
            } catch (ChvException e) {
                LOG.log(System.Logger.Level.WARNING, "CHV pid {0}: vmm.shutdown failed, killing: {1}", String.valueOf(process.pid()), e.getMessage());
            }
            Optional<Integer> code = awaitExit(grace);
            if (code.isPresent()) {
                client.close();
                removeStaleSocket();
                return code.get();
            }
            LOG.log(System.Logger.Level.WARNING, "CHV pid {0} still running {1} ms after vmm.shutdown, killing",
                    String.valueOf(process.pid()), grace.toMillis());
        }
        kill();
        return process.exitValue();
    }

    /** {@link #stop} with a 5 s grace. */
    @Override
    public void close() {
        stop(Duration.ofSeconds(5));
    }
}
