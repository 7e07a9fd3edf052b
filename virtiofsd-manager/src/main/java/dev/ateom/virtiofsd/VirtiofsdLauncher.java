package dev.ateom.virtiofsd;

import dev.ateom.process.ChildLauncher;
import dev.ateom.process.ParentDeathSignalUnavailableException;
import dev.ateom.process.ProcessTree;
import java.io.File;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Starts, adopts and kills virtiofsd processes for one virtiofsd binary, and rotates their logs.
 * One per daemon. Closing it stops log rotation only: running processes are the daemon's to stop.
 */
public final class VirtiofsdLauncher implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(VirtiofsdLauncher.class.getName());

    /**
     * @param readyTimeout     how long a new virtiofsd may take to listen on its socket, and then to serve
     * @param stopGrace        time between SIGTERM and SIGKILL
     * @param logMaxBytes      a share log larger than this is rotated
     * @param logKeep          rotated generations kept ({@code .1} .. {@code .keep})
     * @param logCheckInterval how often running processes' logs are checked for size
     */
    public record Settings(Duration readyTimeout, Duration stopGrace, long logMaxBytes, int logKeep, Duration logCheckInterval) {
        public static final Settings DEFAULT =
                new Settings(Duration.ofSeconds(10), Duration.ofSeconds(3), 4L << 20, 2, Duration.ofSeconds(10));

        public Settings {
            Objects.requireNonNull(readyTimeout, "readyTimeout");
            Objects.requireNonNull(stopGrace, "stopGrace");
            Objects.requireNonNull(logCheckInterval, "logCheckInterval");
        }

        public Settings withStopGrace(Duration value) {
            return new Settings(readyTimeout, value, logMaxBytes, logKeep, logCheckInterval);
        }

        public Settings withLogLimits(long maxBytes, int keep, Duration checkInterval) {
            return new Settings(readyTimeout, stopGrace, maxBytes, keep, checkInterval);
        }
    }

    private final VirtiofsdBinary binary;
    private final Settings settings;
    private final Set<VirtiofsdProcess> running = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService logRotation;

    public VirtiofsdLauncher(VirtiofsdBinary binary, Settings settings) {
        this.binary = Objects.requireNonNull(binary, "binary");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.logRotation = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "ateom-virtiofsd-log-rotation");
            thread.setDaemon(true);
            return thread;
        });
        long interval = settings.logCheckInterval().toMillis();
        logRotation.scheduleWithFixedDelay(this::rotateLogs, interval, interval, TimeUnit.MILLISECONDS);
    }

    public VirtiofsdBinary binary() { return binary; }

    public Settings settings() { return settings; }

    /** The exact command line {@link #start} executes for this share (setpriv wrapper included when it applies). */
    public List<String> commandLine(ShareSpec spec) {
        try {
            return ChildLauncher.command(VirtiofsdArgv.of(binary.path(), spec), spec.options().dieWithDaemon());
        } catch (ParentDeathSignalUnavailableException e) {
            throw new VirtiofsdException(spec.describe() + ": " + e.getMessage(), e);
        }
    }

    /** Processes started or adopted by this launcher that have not exited yet. */
    public List<VirtiofsdProcess> running() {
        return List.copyOf(running);
    }

    /**
     * Starts virtiofsd for a share and returns once it listens ({@link #awaitListening}; {@link VirtiofsdProcess#serving()}
     * completes once it serves). Checks the spec first (nothing
     * is started on bad input); a stale socket file is removed; a socket path some live process still listens on is
     * refused.
     * On any failure the process is stopped again and the exception names the share, the exit and the log tail.
     */
    public VirtiofsdProcess start(ShareSpec spec) {
        spec.validate();
        prepareSocketPath(spec);
        ShareLog log = shareLog(spec);
        log.rotateIfLarger();
        List<String> argv = VirtiofsdArgv.of(binary.path(), spec);
        String logMarker = log.mark("starting " + spec.describe() + ": " + String.join(" ", argv));
        Process child;
        try {
            child = ChildLauncher.start(new ProcessBuilder(argv)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(spec.logFile().toFile()))
                    .redirectErrorStream(true), spec.options().dieWithDaemon());
        } catch (IOException | ParentDeathSignalUnavailableException e) {
            throw new VirtiofsdException(spec.describe() + ": cannot start " + binary.path() + ": " + e.getMessage(), e);
        }
        long startTicks = LinuxProcess.read(child.pid()).map(LinuxProcess::startTicks).orElse(0L);
        VirtiofsdProcess process = new VirtiofsdProcess(this, spec, child.toHandle(), Optional.of(child), startTicks, log, logMarker);
        track(process);
        try {
            awaitListening(process);
        } catch (RuntimeException e) {
            try {
                process.stop();
            } catch (RuntimeException stopFailure) {
                e.addSuppressed(stopFailure);
            }
            throw e;
        }
        ServingWatch.start(process, settings.readyTimeout());
        LOG.log(Level.INFO, "{0}: virtiofsd pid {1} listens on {2}", spec.describe(), Long.toString(process.pid()), spec.socketPath());
        return process;
    }

    /**
     * Takes over a virtiofsd a previous daemon started. Refuses (naming the pid and what it really runs) unless
     * the pid is alive, is a virtiofsd on the recorded socket and shared dir, and has the recorded start time.
     */
    public VirtiofsdProcess adopt(ShareProcessRecord record) {
        ShareSpec spec = record.spec();
        ProcessHandle handle = ProcessHandle.of(record.pid()).orElseThrow(() -> new VirtiofsdException(
                spec.describe() + ": cannot adopt virtiofsd pid " + record.pid() + ": no such process"));
        LinuxProcess process = LinuxProcess.read(record.pid()).filter(p -> !p.isZombie()).orElseThrow(() -> new VirtiofsdException(
                spec.describe() + ": cannot adopt virtiofsd pid " + record.pid() + ": it has exited"));
        if (!process.isVirtiofsdServing(spec.socketPath())
                || !spec.sharedDir().toString().equals(process.optionValue("--shared-dir").orElse(null))) {
            throw new VirtiofsdException(spec.describe() + ": refusing to adopt pid " + record.pid()
                    + ": it is not virtiofsd on " + spec.socketPath() + " serving " + spec.sharedDir()
                    + " but '" + process.commandLine() + "'");
        }
        if (record.startTicks() != 0 && record.startTicks() != process.startTicks()) {
            throw new VirtiofsdException(spec.describe() + ": refusing to adopt pid " + record.pid()
                    + ": it started at tick " + process.startTicks() + ", not " + record.startTicks() + " (pid reused)");
        }
        ShareLog log = shareLog(spec);
        String logMarker = log.mark("adopted " + spec.describe() + " pid " + record.pid());
        VirtiofsdProcess adopted = new VirtiofsdProcess(this, spec, handle, Optional.empty(), process.startTicks(), log, logMarker);
        adopted.rememberDescendants();
        adopted.rememberOwnSockets();
        adopted.served();
        track(adopted);
        LOG.log(Level.INFO, "{0}: adopted virtiofsd pid {1} on {2}", spec.describe(), Long.toString(record.pid()), spec.socketPath());
        return adopted;
    }

    /** Adopts the virtiofsd whose pid is in {@code <socket>.pid} (virtiofsd writes it beside the socket). */
    public VirtiofsdProcess adoptFromPidFile(ShareSpec spec) {
        Path pidFile = spec.pidFile();
        long pid;
        try {
            pid = Long.parseLong(Files.readString(pidFile).strip());
        } catch (IOException | NumberFormatException e) {
            throw new VirtiofsdException(spec.describe() + ": cannot read a pid from " + pidFile + ": " + e.getMessage(), e);
        }
        return adopt(new ShareProcessRecord(spec, pid, 0));
    }

    /**
     * Kills every virtiofsd serving this socket path (found by scanning /proc and checking each command line, so
     * pids that were reused by something else are never signalled), then removes the socket and pid files.
     * SIGTERM first, SIGKILL after the grace period. Returns the pids it signalled.
     */
    public List<Long> killLeftovers(Path socketPath) {
        return killLeftovers(List.of(socketPath)).values().iterator().next();
    }

    /**
     * {@link #killLeftovers(Path)} for several socket paths (a sandbox's shares) with one scan of /proc per round, not
     * one per path: a scan reads a file of every process on the host. Returns the pids signalled for each path.
     */
    public Map<Path, List<Long>> killLeftovers(Collection<Path> socketPaths) {
        Map<String, Path> sockets = new LinkedHashMap<>();
        for (Path path : socketPaths) {
            Path socket = path.toAbsolutePath().normalize();
            sockets.put(socket.toString(), socket);
        }
        Map<Path, Set<Long>> terminated = new LinkedHashMap<>();
        sockets.values().forEach(socket -> terminated.put(socket, new LinkedHashSet<>()));
        Set<Long> killed = new HashSet<>();
        long sigkillAt = System.nanoTime() + settings.stopGrace().toNanos();
        long giveUpAt = sigkillAt + Duration.ofSeconds(5).toNanos();
        // scan until none is left: a namespace-sandbox child may outlive its parent for a moment
        for (List<LinuxProcess> alive = leftoversServing(sockets.keySet()); !alive.isEmpty(); alive = leftoversServing(sockets.keySet())) {
            boolean force = System.nanoTime() > sigkillAt;
            if (System.nanoTime() > giveUpAt) {
                throw new VirtiofsdException("leftover virtiofsd on " + sockets.keySet() + " still running after SIGKILL: pids "
                        + alive.stream().map(LinuxProcess::pid).toList());
            }
            for (LinuxProcess leftover : alive) {
                Path socket = sockets.get(LinuxProcess.virtiofsdSocket(leftover.argv()).orElseThrow());
                if (force && killed.add(leftover.pid())) {
                    LOG.log(Level.WARNING, "leftover virtiofsd pid {0} on {1} ignored SIGTERM, sending SIGKILL",
                            Long.toString(leftover.pid()), socket);
                    signal(leftover, socket, true);
                } else if (terminated.get(socket).add(leftover.pid())) {
                    LOG.log(Level.INFO, "killing leftover virtiofsd pid {0} on {1}", Long.toString(leftover.pid()), socket);
                    signal(leftover, socket, false);
                }
            }
            sleepBriefly();
        }
        Map<Path, List<Long>> signalled = new LinkedHashMap<>();
        for (Map.Entry<Path, Set<Long>> bySocket : terminated.entrySet()) {
            Path socket = bySocket.getKey();
            // a killed virtiofsd whose leader thread is a zombie already (no command line any more, so the scan above no
            // longer sees it) may still hold the listening socket while its other threads exit: the path is free, and its
            // socket file may go, only once the kernel lists nothing listening on it
            if (!bySocket.getValue().isEmpty()) awaitNoListener(socket, bySocket.getValue(), giveUpAt);
            try {
                Files.deleteIfExists(socket);
                Files.deleteIfExists(ShareSpec.pidFileOf(socket));
            } catch (IOException e) {
                throw new VirtiofsdException("cannot remove leftover socket " + socket + " or its pid file: " + e.getMessage(), e);
            }
            signalled.put(socket, List.copyOf(bySocket.getValue()));
        }
        return signalled;
    }

    private static void awaitNoListener(Path socket, Set<Long> killed, long giveUpAt) {
        while (!UnixSocketTable.listeningInodes(socket).isEmpty()) {
            if (System.nanoTime() > giveUpAt) {
                throw new VirtiofsdException("leftover virtiofsd on " + socket + ": a socket still listens there after pids "
                        + killed + " were killed");
            }
            sleepBriefly();
        }
    }

    private static List<LinuxProcess> leftoversServing(Set<String> sockets) {
        return LinuxProcess.allWhose(argv -> LinuxProcess.virtiofsdSocket(argv).filter(sockets::contains).isPresent()).stream()
                .filter(p -> !p.isZombie()).toList();
    }

    /** Signals the process only if this very process (same start time) is still that virtiofsd. */
    private static void signal(LinuxProcess leftover, Path socket, boolean force) {
        // the handle pins the start time, so a pid reused after the check is not signalled either
        Optional<ProcessHandle> handle = ProcessHandle.of(leftover.pid());
        boolean same = handle.isPresent() && LinuxProcess.read(leftover.pid())
                .filter(p -> p.startTicks() == leftover.startTicks() && p.isVirtiofsdServing(socket)).isPresent();
        if (same) {
            if (force) handle.get().destroyForcibly(); else handle.get().destroy();
        }
    }

    /** Kills leftovers of a recorded share: whatever virtiofsd still serves its socket path. */
    public List<Long> killLeftovers(ShareProcessRecord record) {
        return killLeftovers(record.spec().socketPath());
    }

    @Override
    public void close() {
        logRotation.shutdownNow();
    }

    void forget(VirtiofsdProcess process) {
        running.remove(process);
    }

    private void track(VirtiofsdProcess process) {
        running.add(process);
        if (process.exitedAlready()) running.remove(process);
    }

    private ShareLog shareLog(ShareSpec spec) {
        return new ShareLog(spec.logFile(), settings.logMaxBytes(), settings.logKeep());
    }

    private void rotateLogs() {
        for (VirtiofsdProcess process : running) {
            try {
                if (shareLog(process.spec()).rotateIfLarger()) {
                    LOG.log(Level.DEBUG, "{0}: rotated {1}", process.spec().describe(), process.logFile());
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "{0}: {1}", process.spec().describe(), e.getMessage());
            }
        }
    }

    /**
     * Removes a stale socket file; refuses when a live process still listens on the path. A socket the kernel lists
     * as listening on the path is in use whether or not its holder is found: the scan of every process's descriptors
     * can miss it while a virtiofsd that just started hands it to its sandbox child, and removing that socket would
     * cut a running sandbox off its share.
     */
    private static void prepareSocketPath(ShareSpec spec) {
        Path socket = spec.socketPath();
        Set<Long> listening = UnixSocketTable.listeningInodes(socket);
        if (!listening.isEmpty()) {
            Optional<LinuxProcess> holder = LinuxProcess.all().stream()
                    .filter(p -> p.socketInodes().stream().anyMatch(listening::contains))
                    .findFirst();
            throw new VirtiofsdException(spec.describe() + ": socket path " + socket + " is in use: "
                    + holder.map(p -> "pid " + p.pid() + " ('" + p.commandLine() + "')").orElse("a process") + " listens on it");
        }
        try {
            if (Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
                BasicFileAttributes attributes = Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (!attributes.isOther()) {
                    throw new VirtiofsdException(spec.describe() + ": socket path " + socket
                            + " exists and is not a socket; refusing to remove it");
                }
                LOG.log(Level.INFO, "{0}: removing stale socket {1}", spec.describe(), socket);
                Files.delete(socket);
            }
            Files.deleteIfExists(spec.pidFile());
        } catch (IOException e) {
            throw new VirtiofsdException(spec.describe() + ": cannot remove stale socket " + socket + ": " + e.getMessage(), e);
        }
    }

    /**
     * Waits until virtiofsd listens: a process of its tree holds a socket listening on the path. A VMM may connect
     * from then on (the connection waits in the backlog until the child that serves accepts it), so the rest of the
     * set-up is confirmed by a {@link ServingWatch} off the caller's path. That is safe because (1) the kill does not depend on
     * having seen the serving child: virtiofsd's child dies with its parent (a parent-death signal, checked against a
     * parent that died before it was set) and the exit waits until no socket it listened with remains; (2) a set-up
     * that fails after the listen ends the process, which its VMM's connection finds and a bring-up names
     * ({@link VirtiofsdProcess#failure()}); (3) one that hangs is killed by the watch. Until the socket file exists a
     * stat is all each poll costs; the poll is 1 ms, as every ms of slack here is resume time.
     */
    private void awaitListening(VirtiofsdProcess process) {
        ShareSpec spec = process.spec();
        long deadline = System.nanoTime() + settings.readyTimeout().toNanos();
        while (true) {
            if (process.exitedAlready()) {
                VirtiofsdExit exit = process.onExit().join();
                throw new VirtiofsdException(spec.describe() + ": virtiofsd pid " + process.pid()
                        + " exited before listening on " + spec.socketPath() + ": " + exit.describe()
                        + "; log " + spec.logFile() + " ends with: " + String.join(" | ", exit.logTail()));
            }
            if (Files.exists(spec.socketPath(), LinkOption.NOFOLLOW_LINKS) && listens(process)) return;
            if (System.nanoTime() > deadline) {
                throw new VirtiofsdException(spec.describe() + ": virtiofsd pid " + process.pid() + " did not listen on "
                        + spec.socketPath() + " within " + settings.readyTimeout().toMillis() + " ms; log ends with: "
                        + String.join(" | ", process.logTail()));
            }
            sleep(1);
        }
    }

    /**
     * See {@link #awaitListening}: virtiofsd or a process of its tree (with the namespace sandbox the parent closes its
     * copy of the listener once the child that serves has it) holds a socket listening on the path. Once true, the
     * tree read and its listening socket are remembered for the process's end.
     */
    private static boolean listens(VirtiofsdProcess process) {
        Set<Long> listening = UnixSocketTable.listeningInodes(process.spec().socketPath());
        if (listening.isEmpty()) return false;
        List<ProcessHandle> tree = new ArrayList<>(ProcessTree.descendants(process.pid()));
        tree.addFirst(process.handle());
        Set<Long> own = new HashSet<>(VirtiofsdProcess.socketInodesOf(tree));
        own.retainAll(listening);
        if (own.isEmpty()) return false;
        process.remember(tree.subList(1, tree.size()), own);
        return true;
    }

    private static void sleepBriefly() {
        sleep(5);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VirtiofsdException("interrupted while waiting for virtiofsd", e);
        }
    }
}
