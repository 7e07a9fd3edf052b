package dev.ateom.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.fixtures.wait.Eventually;
import dev.ateom.fixtures.wait.ProcessStatus;
import dev.ateom.microvm.jail.LeftoverCgroups;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One test's host: a root dir holding the daemon's state and run dirs, the daemons started on it (one after
 * the other, as restarts), and on close the proof that nothing outlived them.
 */
final class TestHost implements AutoCloseable {
    final Path root;
    private final List<DaemonProcess> daemons = new ArrayList<>();

    TestHost(Path root) { this.root = root; }

    DaemonProcess start(DaemonOptions options) throws IOException, InterruptedException {
        DaemonProcess daemon = DaemonProcess.start(root, options);
        daemons.add(daemon);
        return daemon;
    }

    Path stateDir() { return DaemonProcess.stateDir(root); }

    Path runDir() { return DaemonProcess.runDir(root); }

    Path snapshotsDir() { return stateDir().resolve("snapshots"); }

    Path sandboxDir(String id) { return stateDir().resolve("sandboxes").resolve(id); }

    Path durableData(String id) { return sandboxDir(id).resolve("durable/data"); }

    /** {@code sandbox.json} as the (possibly dead) daemon last wrote it. */
    JsonNode recordOnDisk(String id) throws IOException {
        return DaemonApi.JSON.readTree(sandboxDir(id).resolve("sandbox.json").toFile());
    }

    /** Entries of {@code <state>/snapshots/}: committed snapshot ids and, after a crash, {@code .staging-*} dirs. */
    List<String> snapshotDirEntries() throws IOException {
        if (!Files.isDirectory(snapshotsDir())) return List.of();
        try (Stream<Path> entries = Files.list(snapshotsDir())) {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** The sandboxes' run dirs (not the daemon's pool of idle CHV processes, {@code .vmm-pool}, nor its VMM jail roots, {@code .jail}). */
    List<String> runDirEntries() throws IOException {
        if (!Files.isDirectory(runDir())) return List.of();
        try (Stream<Path> entries = Files.list(runDir())) {
            return entries.map(p -> p.getFileName().toString()).filter(name -> !name.equals(".vmm-pool") && !name.equals(".jail")).sorted().toList();
        }
    }

    /** Processes (virtiofsd, CHV stand-in, daemons) whose command line names a path under this host's root. */
    List<HostProcesses.Found> processes() { return HostProcesses.mentioning(marker()); }

    /** {@link HostProcesses#awaitOnly} for this host's processes: fails with what still runs besides {@code except}. */
    void awaitOnlyProcesses(List<Long> except, String what) {
        HostProcesses.awaitOnly(marker(), except, what);
    }

    /** Waits until a process of this host whose command line contains {@code marker} runs. */
    void awaitProcess(String marker) {
        Eventually.until(Duration.ofSeconds(30), () -> processes().stream().anyMatch(p -> p.commandLine().contains(marker)),
                marker + " to start", () -> processes().toString());
    }

    /** This host's processes that run with no SIGKILL on its way: they survived whatever was done before. */
    List<HostProcesses.Found> survivors() {
        return processes().stream().filter(p -> ProcessStatus.survives(p.pid())).toList();
    }

    /** The root with a trailing slash, so another temp dir whose name merely starts the same never matches. */
    private String marker() { return root + "/"; }

    @Override
    public void close() throws InterruptedException {
        for (DaemonProcess daemon : daemons) daemon.close();
        keepLogs();
        try {
            awaitOnlyProcesses(List.of(), "the daemons of " + root + " to leave no process behind");
            if (!daemons.isEmpty() && daemons.getLast().cleanedUpAtStop()) {
                assertThat(LeftoverCgroups.of(stateDir())).as("cgroups of %s left after its daemon's clean stop", root).isEmpty();
            }
        } finally {
            // kill and remove what leaked so later tests start clean
            processes().forEach(f -> ProcessHandle.of(f.pid()).ifPresent(p -> {
                p.destroyForcibly();
                p.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(e -> p).join();
            }));
            LeftoverCgroups.remove(stateDir());
        }
    }

    /** The daemons' logs outlive the temp dir, under target/e2e-logs/, for whoever reads a failure. */
    private void keepLogs() {
        Path target = Path.of("target/e2e-logs").resolve(root.getFileName());
        try (Stream<Path> logs = Files.list(root)) {
            Files.createDirectories(target);
            for (Path log : logs.filter(p -> p.getFileName().toString().endsWith(".log")).toList()) {
                Files.copy(log, target.resolve(log.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            System.err.println("cannot keep the daemon logs of " + root + ": " + e);
        }
    }
}
