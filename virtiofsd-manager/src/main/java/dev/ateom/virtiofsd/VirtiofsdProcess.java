package dev.ateom.virtiofsd;

import dev.ateom.process.ProcessTree;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One running virtiofsd serving one share: started by {@link VirtiofsdLauncher#start} or adopted after a daemon
 * restart by {@link VirtiofsdLauncher#adopt}. Its exit is watched; {@link #onExit()} completes with the reason,
 * and the socket and pid files virtiofsd leaves behind are removed when it is gone.
 */
public final class VirtiofsdProcess {

    private static final System.Logger LOG = System.getLogger(VirtiofsdProcess.class.getName());
    static final int LOG_TAIL_LINES = 30;
    private static final Duration KILL_WAIT = Duration.ofSeconds(5);
    /** How long {@link #failure()} waits for a gone process's exit to be handled, to say how it ended. */
    private static final Duration EXIT_DESCRIBED_WITHIN = Duration.ofSeconds(1);
    private static final Executor EXIT_HANDLERS =
            Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("ateom-virtiofsd-exit-", 0).factory());

    private final VirtiofsdLauncher launcher;
    /** Its paths: those it was started with, or those it was {@linkplain #relocate relocated} to. */
    private volatile ShareSpec spec;
    private final ProcessHandle handle;
    private final long startTicks;
    private final boolean adopted;
    private volatile ShareLog log;
    private final String logMarker;
    private final AtomicBoolean stopRequested = new AtomicBoolean();
    /** Completed by the JVM's exit watch, or for adopted processes also by our own polling in stop(). */
    private final CompletableFuture<OptionalInt> rawExit = new CompletableFuture<>();
    private final CompletableFuture<VirtiofsdExit> exit = new CompletableFuture<>();
    /** Completed once a process of its tree serves (see {@link #serving()}); failed if none does. */
    private final CompletableFuture<Void> serving = new CompletableFuture<>();
    /** The namespace-sandbox child and any other descendants seen, killed if they outlive the main process. */
    private final Set<ProcessHandle> descendants = ConcurrentHashMap.newKeySet();
    private final Set<Long> ownSocketInodes = ConcurrentHashMap.newKeySet();

    VirtiofsdProcess(VirtiofsdLauncher launcher, ShareSpec spec, ProcessHandle handle, Optional<Process> child,
                     long startTicks, ShareLog log, String logMarker) {
        this.launcher = launcher;
        this.spec = spec;
        this.handle = handle;
        this.startTicks = startTicks;
        this.adopted = child.isEmpty();
        this.log = log;
        this.logMarker = logMarker;
        if (child.isPresent()) {
            // waited for on a thread of its own, not through Process.onExit(): that future completes by a stage on the
            // common fork-join pool, which any task blocked there, anywhere in the JVM, holds up (ProcessKill)
            Process process = child.get();
            Thread.ofVirtual().name("virtiofsd-exit-" + handle.pid()).start(() -> rawExit.complete(OptionalInt.of(exitValueOf(process))));
        } else {
            handle.onExit().thenAccept(h -> rawExit.complete(OptionalInt.empty()));
        }
        // not on the JDK's reaper or the common pool: the handler may wait for the sandboxed child to die
        rawExit.thenAcceptAsync(this::exited, EXIT_HANDLERS);
    }

    /** The child's exit code once it exited; an interrupt does not end the wait (nothing else would see the exit). */
    private static int exitValueOf(Process process) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return process.waitFor();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    public ShareSpec spec() { return spec; }

    public ShareKind kind() { return spec.kind(); }

    public long pid() { return handle.pid(); }

    public Path socketPath() { return spec.socketPath(); }

    public Path logFile() { return spec.logFile(); }

    /** True when this process was adopted after a daemon restart (its exit status cannot be known). */
    public boolean adopted() { return adopted; }

    public boolean isAlive() { return !exit.isDone() && stillRunning(); }

    /**
     * The processes below this one, read now: with {@code --sandbox=namespace} the one that serves the guest (and holds
     * the memory and threads of the share) is its child, forked once the socket listens. Whatever confines a share must
     * take them too: a child joins a cgroup only by its parent being in it when it forks. So a caller moves this
     * process first and reads these after: a child forked in between is born where its parent went.
     */
    public List<Long> descendantPids() {
        return ProcessTree.descendants(pid()).stream().map(ProcessHandle::pid).toList();
    }

    /** What the daemon persists to adopt or kill this process after its own restart. */
    public ShareProcessRecord record() {
        return new ShareProcessRecord(spec, pid(), startTicks);
    }

    /** Completes once the process is gone and its files are cleaned up. */
    public CompletableFuture<VirtiofsdExit> onExit() {
        return exit.copy();
    }

    /**
     * Completes once a process of its tree has entered virtiofsd's seccomp filter, the last step of its set-up: with
     * {@code --sandbox=namespace} the child forked after the socket listens ({@link VirtiofsdLauncher#start} returns
     * at the listen). Fails, naming the exit and the log tail, if it exits first or does not serve within the
     * launcher's ready timeout (it is then killed). An adopted process serves already.
     */
    public CompletableFuture<Void> serving() {
        return serving.copy();
    }

    /**
     * Why this share cannot serve its VM, when it cannot: it has exited, or it never finished setting itself up. What
     * a failed vm.create, vm.boot or vm.restore is explained by, since the VMM's own error names a socket at best. A
     * share that ended because its VMM disconnected is none: the VMM's failure came first (it closes its connections).
     */
    public Optional<String> failure() {
        if (serving.isCompletedExceptionally()) {
            return Optional.of(serving.exceptionNow().getMessage());
        }
        if (!exit.isDone() && handle.isAlive()) return Optional.empty();
        try {
            // gone, its exit being handled (a failure path: worth a moment for how it ended)
            VirtiofsdExit how = exit.get(EXIT_DESCRIBED_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
            if (how.reason() == VirtiofsdExit.Reason.FRONTEND_DISCONNECTED) return Optional.empty();
            return Optional.of(spec.describe() + ": virtiofsd pid " + pid() + " " + how.describe() + "; log "
                    + spec.logFile() + " ends with: " + String.join(" | ", how.logTail()));
        } catch (TimeoutException | ExecutionException e) {
            return Optional.of(spec.describe() + ": virtiofsd pid " + pid() + " has exited; log " + spec.logFile()
                    + " ends with: " + String.join(" | ", logTail()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of(spec.describe() + ": virtiofsd pid " + pid() + " has exited");
        }
    }

    /** The last lines this process wrote to its log. */
    public List<String> logTail() {
        return log.linesAfter(logMarker, LOG_TAIL_LINES);
    }

    /** SIGTERM, then SIGKILL after the launcher's grace period; returns how it ended (possibly before we asked). */
    public VirtiofsdExit stop() {
        return stop(launcher.settings().stopGrace());
    }

    public VirtiofsdExit stop(Duration grace) {
        if (exit.isDone()) return exit.join();
        stopRequested.set(true);
        rememberDescendants();
        LOG.log(Level.DEBUG, "{0}: stopping virtiofsd pid {1}", spec.describe(), Long.toString(pid()));
        handle.destroy();
        try {
            return awaitExit(grace);
        } catch (TimeoutException notYet) {
            LOG.log(Level.WARNING, "{0}: virtiofsd pid {1} ignored SIGTERM for {2} ms, sending SIGKILL",
                    spec.describe(), Long.toString(pid()), grace.toMillis());
            handle.destroyForcibly();
            try {
                return awaitExit(KILL_WAIT);
            } catch (TimeoutException e) {
                throw new VirtiofsdException(spec.describe() + ": virtiofsd pid " + pid() + " still runs "
                        + KILL_WAIT.toSeconds() + " s after SIGKILL");
            }
        }
    }

    /**
     * SIGKILL to it and its namespace-sandbox child at once, for when nothing it serves matters any more (its VM is
     * gone or discarded); returns how it ended (possibly before we asked).
     */
    public VirtiofsdExit kill() {
        if (exit.isDone()) return exit.join();
        stopRequested.set(true);
        rememberDescendants();
        handle.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
        try {
            return awaitExit(KILL_WAIT);
        } catch (TimeoutException e) {
            throw new VirtiofsdException(spec.describe() + ": virtiofsd pid " + pid() + " still runs "
                    + KILL_WAIT.toSeconds() + " s after SIGKILL");
        }
    }

    /**
     * Takes the paths of {@code to} once the caller has moved this process's files there (its pid file, its log, its
     * shared dir renamed; its socket given a second name): the shares made ahead for a clone become the clone's. Only
     * once it {@linkplain #serving() serves}: until then its set-up may still open the shared dir by its old path.
     * virtiofsd holds each of them by descriptor or inode, so it serves on: a listening Unix socket is reached through
     * any name of its file, the log is appended through the file it opened, its namespace sandbox's root is the dir it
     * bound when it started.
     * Two things keep the old names: its command line and the kernel's socket table ({@code /proc/net/unix}), so a scan
     * for leftovers by the new socket path does not find it. Hence only a process that dies with the daemon may be
     * relocated: after a crash nothing of it is left to scan for.
     */
    public void relocate(ShareSpec to) {
        ShareSpec from = spec;
        if (to.kind() != from.kind() || !to.options().equals(from.options())) {
            throw new IllegalArgumentException(from.describe() + ": a relocation keeps the kind and options, not " + to);
        }
        if (!from.options().dieWithDaemon()) {
            throw new IllegalStateException(from.describe() + ": only a virtiofsd that dies with the daemon may be relocated");
        }
        if (!serving.isDone() || serving.isCompletedExceptionally()) {
            // its set-up opens the shared dir by its path: a rename before it would leave it nothing to serve
            throw new IllegalStateException(from.describe() + ": virtiofsd pid " + pid() + " may be relocated only once it serves");
        }
        spec = to;
        log = new ShareLog(to.logFile(), log.maxBytes(), log.keep());
        LOG.log(Level.DEBUG, "{0}: virtiofsd pid {1} on {2} is now {3} on {4}", from.describe(), Long.toString(pid()),
                from.socketPath(), to.describe(), to.socketPath());
    }

    /** Stops this process (if still running) and starts a fresh one for the same share on a new socket path. */
    public VirtiofsdProcess restart(Path newSocketPath) {
        stop();
        return launcher.start(spec.withSocketPath(newSocketPath));
    }

    /** Its own tree only, read from /proc for this process (a host-wide scan costs tens of ms on a loaded host). */
    void rememberDescendants() {
        descendants.addAll(ProcessTree.descendants(pid()));
    }

    /** Records the sockets this process (tree) holds now, so that its exit never removes a successor's socket. */
    void rememberOwnSockets() {
        ownSocketInodes.addAll(heldSocketInodes());
    }

    /** Records what the readiness check found: the tree it read and the sockets that tree holds. */
    void remember(List<ProcessHandle> tree, Set<Long> socketInodes) {
        descendants.addAll(tree);
        ownSocketInodes.addAll(socketInodes);
    }

    private VirtiofsdExit awaitExit(Duration timeout) throws TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (adopted && !stillRunning()) {
                // not our child: the JVM only polls for its end, slowly; we know now
                rawExit.complete(OptionalInt.empty());
            }
            try {
                long left = deadline - System.nanoTime();
                return exit.get(Math.max(0, Math.min(left, TimeUnit.MILLISECONDS.toNanos(10))), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                if (System.nanoTime() >= deadline) throw e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new VirtiofsdException(spec.describe() + ": interrupted while waiting for virtiofsd pid " + pid() + " to exit", e);
            } catch (ExecutionException e) {
                throw new VirtiofsdException(spec.describe() + ": watching virtiofsd pid " + pid() + " failed", e.getCause());
            }
        }
    }

    /** Still the same process (start time) and running: not a zombie, or one whose other threads still exit. */
    private boolean stillRunning() {
        return LinuxProcess.read(pid()).filter(p -> startTicks == 0 || p.startTicks() == startTicks).isPresent()
                && ProcessTree.isRunning(pid());
    }

    private void exited(OptionalInt status) {
        try {
            killOrphanedDescendants();
            awaitOwnListenerClosed();
            removeLeftoverFiles();
            VirtiofsdExit result = VirtiofsdExit.classify(stopRequested.get(), status, logTail());
            launcher.forget(this);
            Level level = switch (result.reason()) {
                case STOPPED, FRONTEND_DISCONNECTED -> Level.INFO;
                default -> Level.WARNING;
            };
            LOG.log(level, "{0}: virtiofsd pid {1} on {2} {3}", spec.describe(), Long.toString(pid()), spec.socketPath(), result.describe());
            exit.complete(result);
        } catch (RuntimeException e) {
            exit.completeExceptionally(e);
        }
    }

    /**
     * The namespace-sandbox child normally dies with its parent (virtiofsd gives it a parent-death signal), but
     * asynchronously: make sure it is gone before anyone is told this share has exited.
     */
    private void killOrphanedDescendants() {
        for (ProcessHandle descendant : descendants) {
            if (descendant.isAlive()) descendant.destroyForcibly();
        }
        long deadline = System.nanoTime() + KILL_WAIT.toNanos();
        for (ProcessHandle descendant : descendants) {
            // a zombie leader is not gone while its other threads still hold the descriptors they share (ProcessTree.isRunning):
            // a listening socket stayed in the kernel's table, refusing the next start on its path; isAlive tells a reused pid
            while (ProcessTree.isRunning(descendant.pid()) && descendant.isAlive() && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * A child forked after its tree was last read (between the listen and the serve, see {@link #serving()}) is not
     * among the descendants killed above: virtiofsd gives it a parent-death signal, checked against a parent that died
     * before it was set, so it dies, but a moment later. It holds the listening socket until then, so the process is
     * gone once no socket it listened with remains: a start on the same path must not find it in use.
     */
    private void awaitOwnListenerClosed() {
        if (ownSocketInodes.isEmpty()) return;
        long deadline = System.nanoTime() + KILL_WAIT.toNanos();
        while (UnixSocketTable.listeningInodes(spec.socketPath()).stream().anyMatch(ownSocketInodes::contains)) {
            if (System.nanoTime() > deadline) {
                LOG.log(Level.WARNING, "{0}: a socket virtiofsd pid {1} listened with still listens on {2} {3} s after its exit",
                        spec.describe(), Long.toString(pid()), spec.socketPath(), KILL_WAIT.toSeconds());
                return;
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** virtiofsd leaves its socket and pid file behind on every kind of exit. */
    private void removeLeftoverFiles() {
        try {
            Path pidFile = spec.pidFile();
            if (Files.exists(pidFile)) {
                String owner = Files.readString(pidFile).strip();
                if (!owner.isEmpty() && !owner.equals(Long.toString(pid()))) {
                    LOG.log(Level.WARNING, "{0}: leaving {1} alone: it names pid {2}, not {3}",
                            spec.describe(), pidFile, owner, Long.toString(pid()));
                    return;
                }
            }
            // a socket listening on the path that was never ours belongs to a successor started on the same path
            Set<Long> foreign = new HashSet<>(UnixSocketTable.listeningInodes(spec.socketPath()));
            foreign.removeAll(ownSocketInodes);
            if (foreign.isEmpty()) {
                Files.deleteIfExists(spec.socketPath());
            }
            Files.deleteIfExists(pidFile);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "{0}: cannot remove socket/pid files of virtiofsd pid {1}: {2}",
                    spec.describe(), Long.toString(pid()), e.getMessage());
        }
    }

    /** Socket inodes held by this process and its descendants. */
    Set<Long> heldSocketInodes() {
        List<ProcessHandle> tree = new ArrayList<>(ProcessTree.descendants(pid()));
        tree.add(handle);
        return socketInodesOf(tree);
    }

    /**
     * Socket inodes the given processes hold. Trees are read from a process's own {@code /proc} entries
     * ({@link ProcessTree}): {@link ProcessHandle#descendants()} scans every process on the host, tens of ms on a
     * loaded one, and readiness asks this every millisecond.
     */
    static Set<Long> socketInodesOf(List<ProcessHandle> processes) {
        Set<Long> inodes = new HashSet<>();
        processes.forEach(p -> LinuxProcess.read(p.pid()).ifPresent(read -> inodes.addAll(read.socketInodes())));
        return inodes;
    }

    ProcessHandle handle() { return handle; }

    /** For {@link ServingWatch} and adoption: a process of its tree serves. */
    void served() {
        serving.complete(null);
    }

    /** For {@link ServingWatch}: none of its tree will serve. */
    void notServing(VirtiofsdException why) {
        serving.completeExceptionally(why);
    }

    boolean exitedAlready() {
        return exit.isDone();
    }

    @Override
    public String toString() {
        return "virtiofsd pid " + pid() + " (" + spec.describe() + ", " + spec.socketPath() + ")";
    }
}
