package dev.ateom.virtiofsd;

import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The virtiofsd processes of one sandbox (normally the three {@link ShareKind}s), started together and
 * stopped together. A fresh set is needed for every boot or restore: virtiofsd exits when its VMM disconnects.
 */
public final class ShareSet {

    private static final System.Logger LOG = System.getLogger(ShareSet.class.getName());

    private final Map<ShareKind, VirtiofsdProcess> processes;
    /** Where a caller confined the processes ({@link #confine}), ended once they are stopped or killed; once. */
    private final AtomicReference<ShareConfinement> confinement = new AtomicReference<>();

    private ShareSet(Map<ShareKind, VirtiofsdProcess> processes) {
        this.processes = Collections.unmodifiableMap(new EnumMap<>(processes));
    }

    /**
     * Validates every spec (nothing starts on bad input), then starts all in parallel and waits until each listens.
     * If any fails, the others are stopped and a {@link ShareStartException} names the failed share and why.
     */
    public static ShareSet start(VirtiofsdLauncher launcher, List<ShareSpec> specs) {
        validate(specs);
        Map<ShareKind, Future<VirtiofsdProcess>> starting = new LinkedHashMap<>();
        Map<ShareKind, VirtiofsdProcess> started = new EnumMap<>(ShareKind.class);
        Map<ShareKind, Throwable> failures = new LinkedHashMap<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (ShareSpec spec : specs) {
                starting.put(spec.kind(), pool.submit(() -> launcher.start(spec)));
            }
            for (Map.Entry<ShareKind, Future<VirtiofsdProcess>> entry : starting.entrySet()) {
                try {
                    started.put(entry.getKey(), entry.getValue().get());
                } catch (ExecutionException e) {
                    failures.put(entry.getKey(), e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    failures.put(entry.getKey(), e);
                }
            }
        }
        if (failures.isEmpty()) return new ShareSet(started);

        String sandbox = specs.getFirst().sandboxId();
        for (VirtiofsdProcess process : started.values()) {
            try {
                process.stop();
            } catch (RuntimeException e) {
                failures.values().iterator().next().addSuppressed(e);
            }
        }
        Map.Entry<ShareKind, Throwable> first = failures.entrySet().iterator().next();
        ShareStartException failure = new ShareStartException(first.getKey(), "sandbox " + sandbox + ": share "
                + first.getKey().tag() + " failed to start: " + first.getValue().getMessage()
                + (started.isEmpty() ? "" : "; stopped the shares that had started (" + tags(started.keySet()) + ")"),
                first.getValue());
        failures.values().stream().skip(1).forEach(failure::addSuppressed);
        LOG.log(Level.WARNING, failure.getMessage());
        throw failure;
    }

    /** The usual specs of one sandbox: one per shared dir, sockets and logs named after the kind in the run dir. */
    public static List<ShareSpec> specs(String sandboxId, Map<ShareKind, Path> sharedDirs, Path runDir, ShareOptions options) {
        return sharedDirs.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> ShareSpec.inRunDir(sandboxId, e.getKey(), e.getValue(), runDir, options))
                .toList();
    }

    /** Adopts the recorded processes of a running sandbox after a daemon restart; on any refusal adopts none. */
    public static ShareSet adopt(VirtiofsdLauncher launcher, List<ShareProcessRecord> records) {
        Map<ShareKind, VirtiofsdProcess> adopted = new EnumMap<>(ShareKind.class);
        try {
            for (ShareProcessRecord record : records) {
                adopted.put(record.spec().kind(), launcher.adopt(record));
            }
        } catch (RuntimeException e) {
            // adopting changed nothing in the processes themselves: just stop tracking them
            adopted.values().forEach(launcher::forget);
            throw e;
        }
        return new ShareSet(adopted);
    }

    public VirtiofsdProcess get(ShareKind kind) {
        VirtiofsdProcess process = processes.get(kind);
        if (process == null) throw new IllegalArgumentException("this share set has no " + kind.tag() + " share");
        return process;
    }

    public Map<ShareKind, VirtiofsdProcess> processes() {
        return processes;
    }

    /**
     * The shares whose process has ended: its exit seen, or the pid gone. One native liveness check per share (not the
     * {@code /proc} reads of {@link VirtiofsdProcess#isAlive}), so a bring-up can ask it on its path; a process killed
     * but not yet reaped still counts as running.
     */
    public List<ShareKind> exited() {
        return processes.values().stream().filter(p -> p.exitedAlready() || !p.handle().isAlive()).map(VirtiofsdProcess::kind).toList();
    }

    /**
     * Why shares of this set cannot serve their VM ({@link VirtiofsdProcess#failure()}), by kind; empty when all can.
     * For explaining a VMM call that failed: a share whose set-up failed right after its listen fails the VMM's
     * connection about when it exits, so this waits up to {@code grace} for an exit it does not see yet.
     */
    public Map<ShareKind, String> failures(Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        while (true) {
            Map<ShareKind, String> failures = new EnumMap<>(ShareKind.class);
            processes.forEach((kind, process) -> process.failure().ifPresent(why -> failures.put(kind, why)));
            if (!failures.isEmpty() || System.nanoTime() > deadline) return failures;
            // the exits still to come (one already handled, e.g. its VMM disconnected, would end the wait at once)
            CompletableFuture<?>[] pending = processes.values().stream().filter(p -> !p.exitedAlready())
                    .map(VirtiofsdProcess::onExit).toArray(CompletableFuture[]::new);
            if (pending.length == 0) return failures;
            try {
                CompletableFuture.anyOf(pending).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                // none exited in time (or its exit handling failed): report what is known
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return failures;
            }
        }
    }

    /**
     * Waits until every share serves ({@link VirtiofsdProcess#serving()}: a start returns at the listen); throws the
     * first share's failure. Bounded by the launcher's ready timeout, after which a share that does not serve is killed.
     */
    public void awaitServing() {
        for (VirtiofsdProcess process : processes.values()) {
            try {
                process.serving().join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof RuntimeException cause) throw cause;
                throw e;
            }
        }
    }

    /** tag → socket path: what goes into the VM config's {@code fs[]} entries. */
    public Map<String, Path> socketsByTag() {
        Map<String, Path> sockets = new LinkedHashMap<>();
        processes.forEach((kind, process) -> sockets.put(kind.tag(), process.socketPath()));
        return sockets;
    }

    /** What the daemon persists for {@link #adopt}. */
    public List<ShareProcessRecord> records() {
        return processes.values().stream().map(VirtiofsdProcess::record).toList();
    }

    /**
     * Records where the caller confined these processes: the set ends it once they are stopped or killed, whoever does
     * that (a bring-up's rollback, a teardown, a set started ahead and dropped). At most one.
     */
    public void confine(ShareConfinement where) {
        if (!confinement.compareAndSet(null, where)) {
            throw new IllegalStateException("this share set is confined already (" + confinement.get().name() + ")");
        }
    }

    /** Where the processes were confined, until that ended. */
    public Optional<ShareConfinement> confinement() {
        return Optional.ofNullable(confinement.get());
    }

    /** Stops every process (SIGTERM, then SIGKILL after the grace period); returns how each ended. */
    public Map<ShareKind, VirtiofsdExit> stop() {
        return endEach(VirtiofsdProcess::stop);
    }

    /** SIGKILLs every process at once (nothing they serve matters any more); returns how each ended. */
    public Map<ShareKind, VirtiofsdExit> kill() {
        return endEach(VirtiofsdProcess::kill);
    }

    private Map<ShareKind, VirtiofsdExit> endEach(Function<VirtiofsdProcess, VirtiofsdExit> end) {
        Map<ShareKind, VirtiofsdExit> exits = new EnumMap<>(ShareKind.class);
        List<RuntimeException> errors = new ArrayList<>();
        // in parallel, so the waits for the exits overlap
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (VirtiofsdProcess process : processes.values()) {
                pool.submit(() -> {
                    try {
                        VirtiofsdExit exit = end.apply(process);
                        synchronized (exits) { exits.put(process.kind(), exit); }
                    } catch (RuntimeException e) {
                        synchronized (errors) { errors.add(e); }
                    }
                });
            }
        }
        // the processes are gone (or their ends failed, and what is confined ends with the confinement)
        ShareConfinement confined = confinement.getAndSet(null);
        if (confined != null) confined.end();
        if (!errors.isEmpty()) {
            RuntimeException first = errors.getFirst();
            errors.stream().skip(1).forEach(first::addSuppressed);
            throw first;
        }
        return exits;
    }

    /** Stops this set and starts a fresh one with each share on the socket path the function gives. */
    public ShareSet restart(VirtiofsdLauncher launcher, Function<ShareSpec, Path> newSocketPath) {
        stop();
        return start(launcher, processes.values().stream()
                .map(p -> p.spec().withSocketPath(newSocketPath.apply(p.spec()))).toList());
    }

    private static void validate(List<ShareSpec> specs) {
        if (specs.isEmpty()) throw new IllegalArgumentException("a share set needs at least one share");
        Set<ShareKind> kinds = new HashSet<>();
        Set<Path> sockets = new HashSet<>();
        for (ShareSpec spec : specs) {
            if (!kinds.add(spec.kind())) {
                throw new VirtiofsdException(spec.describe() + ": share kind " + spec.kind() + " appears twice");
            }
            if (!sockets.add(spec.socketPath())) {
                throw new VirtiofsdException(spec.describe() + ": socket path " + spec.socketPath() + " is used by two shares");
            }
            spec.validate();
        }
    }

    private static String tags(Set<ShareKind> kinds) {
        return String.join(", ", kinds.stream().map(ShareKind::tag).toList());
    }
}
