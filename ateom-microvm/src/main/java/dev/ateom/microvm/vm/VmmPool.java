package dev.ateom.microvm.vm;

import dev.ateom.chv.ChvLaunch;
import dev.ateom.chv.ChvProcess;
import dev.ateom.microvm.sandbox.TreeRemoval;
import dev.ateom.process.ProcessKill;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Idle cloud-hypervisor processes started ahead of need, each in its own dir under {@code <run-dir>/.vmm-pool/}
 * and already answering {@code vmm.ping}: create, clone and resume claim one instead of paying a process start
 * (a real CHV's few ms, the JVM-based stand-in's ~0.5 s). A claim renames the member's API socket and logs into
 * the sandbox's epoch dir and returns it; a background thread refills the pool. Members die with the daemon
 * (parent-death signal) and a start reclaims whatever a previous daemon left there.
 *
 * <p>With the jail on, each member is started in a jail of its own ({@link MemberJails}): its uid, an empty root with
 * mount points where its sandbox's files are bound in at the claim ({@link HandOver}), no network.
 *
 * <p>The refill waits while a bring-up claims and hands over its VMM ({@link #holdRefill}), for at most
 * {@link #REFILL_HOLD_MAX}: a member's start (a jail's namespaces and cgroups, an injector, the VMM) is speculative
 * work, and started at the claim it took the CPU and the kernel's mount lock from the very hand-over that claimed: the
 * bring-up waited for it 2.6-3.4 ms at p50 instead of 0.8-1.3 (issue 27, docs/decisions.md). Held no longer than that, the
 * refill keeps up with claims that come back to back; the bound keeps a hold never closed from starving the pool.
 *
 * <p>Disabled (size 0) when children are to outlive the daemon: a claimed CHV's command line names its pool path,
 * not the sandbox's, which the adoption of survivors after a restart relies on.
 */
public final class VmmPool implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(VmmPool.class.getName());
    /** The stand-in is a JVM; on a loaded host its first ping can take seconds. */
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    /**
     * The longest a refill waits for holds: far longer than a hand-over (1-10 ms here), short enough that a pool drained
     * by a burst of bring-ups refills during it.
     */
    static final Duration REFILL_HOLD_MAX = Duration.ofSeconds(1);

    private final Path poolDir;
    private final Path binary;
    private final MemberJails jails;
    private final int size;
    private final Duration refillHoldMax;
    private final LinkedBlockingDeque<Member> ready = new LinkedBlockingDeque<>();
    private final Object refill = new Object();
    private final AtomicLong serial = new AtomicLong();
    /** Holds open ({@link #holdRefill}); guarded by {@link #refill}. */
    private int holds;
    private final Counter claims;
    private final Thread refiller;
    private volatile boolean closed;

    private record Member(Path dir, ChvProcess chv) {}

    /** How members are jailed: each gets a jail of its own at its start, ended when it is discarded unclaimed. */
    public interface MemberJails {
        /** Members run unjailed ({@code --jail off}). */
        MemberJails NONE = new MemberJails() {
            @Override
            public ChvLaunch jail(Path memberDir, ChvLaunch launch) { return launch; }

            @Override
            public void started(Path memberDir, ChvProcess chv) {}

            @Override
            public void release(Path memberDir) {}

            @Override
            public boolean jailed() { return false; }
        };

        /** {@code launch} inside a new jail for the member in {@code memberDir} (made writable for it). */
        ChvLaunch jail(Path memberDir, ChvLaunch launch);

        /** The member answers, its jail is up: what the hand-over needs may be readied now, off the claim's path. */
        void started(Path memberDir, ChvProcess chv);

        /** Ends the jail of a member never handed over, once its processes are gone. */
        void release(Path memberDir);

        /** Whether members are jailed: then the jail handed over owns the member's dir, which outlives the claim. */
        boolean jailed();
    }

    /** A bring-up's claim under way, during which the refill waits: closing it again does nothing. */
    public interface RefillHold extends AutoCloseable {
        @Override
        void close();
    }

    /** What a claim does with a member before it is the caller's; a failure discards the member (the claim goes cold). */
    @FunctionalInterface
    public interface HandOver {
        /** @param memberDir the member's dir, {@code chv} its process (already moved to the claim's paths) */
        void accept(Path memberDir, ChvProcess chv);

        HandOver NOTHING = (dir, chv) -> {};
    }

    private VmmPool(Path poolDir, Path binary, MemberJails jails, int size, PrometheusRegistry registry, Duration refillHoldMax) {
        this.poolDir = poolDir;
        this.refillHoldMax = refillHoldMax;
        this.binary = binary;
        this.jails = jails;
        this.size = binary == null ? 0 : size;
        claims = Counter.builder().name("ateom_vmm_pool_claims_total")
                .help("cloud-hypervisor processes handed to create, clone and resume: warm from the pool or cold-started")
                .labelNames("source").register(registry);
        GaugeWithCallback.builder().name("ateom_vmm_pool_ready").help("Idle cloud-hypervisor processes waiting in the pool")
                .callback(cb -> cb.call(ready.size())).register(registry);
        GaugeWithCallback.builder().name("ateom_vmm_pool_size").help("How many idle cloud-hypervisor processes the pool keeps")
                .callback(cb -> cb.call(this.size)).register(registry);
        refiller = Thread.ofPlatform().daemon().name("vmm-pool-refill").unstarted(this::refillLoop);
    }

    /**
     * Reclaims {@code <runDir>/.vmm-pool} (kills what a previous daemon left there); {@link #startFilling} fills it.
     *
     * @param binary the CHV binary, or empty when there is none (then the pool stays empty)
     * @param jails  how members are jailed ({@link MemberJails#NONE}: not at all)
     * @param size   members to keep; 0 disables the pool
     */
    public static VmmPool start(Path runDir, Optional<Path> binary, MemberJails jails, int size, PrometheusRegistry registry) {
        return start(runDir, binary, jails, size, registry, REFILL_HOLD_MAX);
    }

    /** {@link #start(Path, Optional, MemberJails, int, PrometheusRegistry)} with another bound on a refill's wait for holds. */
    static VmmPool start(Path runDir, Optional<Path> binary, MemberJails jails, int size, PrometheusRegistry registry, Duration refillHoldMax) {
        Path poolDir = runDir.resolve(".vmm-pool");
        reclaim(poolDir);
        VmmPool pool = new VmmPool(poolDir, binary.orElse(null), jails, size, registry, refillHoldMax);
        if (pool.size > 0) {
            try {
                Files.createDirectories(poolDir);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create " + poolDir, e);
            }
        }
        return pool;
    }

    /**
     * Starts the background fill, once the daemon answers: its process starts would otherwise compete with the
     * daemon's own start for the CPU (each stand-in member is a JVM). A claim before then starts a CHV cold.
     */
    public synchronized void startFilling() {
        // after close nothing may start: the daemon can stop before the start's virtiofsd probe let the pool fill
        if (!closed && size > 0 && refiller.getState() == Thread.State.NEW) refiller.start();
    }

    /**
     * A warm CHV, its API socket and logs moved to {@code target}'s paths (which must not exist yet), or empty
     * when none is ready: then the caller starts one itself.
     */
    public Optional<ChvProcess> claim(SandboxLayout.EpochLayout target) {
        return claim(target, HandOver.NOTHING);
    }

    /**
     * {@link #claim(SandboxLayout.EpochLayout)}, {@code handOver} done last (a jailed member gets its sandbox's files
     * and cgroup there); when it fails, the member is discarded and the claim is empty.
     */
    public Optional<ChvProcess> claim(SandboxLayout.EpochLayout target, HandOver handOver) {
        Member member;
        while ((member = ready.poll()) != null) {
            wakeRefiller();
            if (member.chv().isAlive()) break;
            LOG.log(WARNING, "pooled cloud-hypervisor pid " + member.chv().pid() + " died while idle; discarding it");
            discard(member);
        }
        if (member == null) {
            claims.labelValues("cold").inc();
            return Optional.empty();
        }
        ChvLaunch moved = new ChvLaunch(binary, target.apiSocket(), target.chvLog(), target.chvOutput(), 1, READY_TIMEOUT, Map.of());
        try {
            // the logs exist only once CHV wrote to them; the socket goes last, so a failure leaves the target unclaimed
            moveIfPresent(member.chv().launch().logFile(), moved.logFile());
            moveIfPresent(member.chv().launch().outputFile(), moved.outputFile());
            Files.move(member.chv().launch().apiSocket(), moved.apiSocket(), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            LOG.log(WARNING, "cannot move pooled cloud-hypervisor into " + target.dir() + ": " + e.getMessage() + "; starting one cold");
            discard(member);
            deleteQuietly(moved.logFile(), moved.outputFile());
            claims.labelValues("cold").inc();
            return Optional.empty();
        }
        ChvProcess claimed = member.chv().movedTo(moved);
        try {
            handOver.accept(member.dir(), claimed);
        } catch (RuntimeException e) {
            LOG.log(WARNING, "cannot hand pooled cloud-hypervisor pid " + claimed.pid() + " over to " + target.dir() + ": " + e.getMessage()
                    + "; starting one cold");
            discard(new Member(member.dir(), claimed));
            deleteQuietly(moved.logFile(), moved.outputFile(), moved.apiSocket());
            claims.labelValues("cold").inc();
            return Optional.empty();
        }
        // a jailed member's dir is in its jail (its JVM's temporary files, for the stand-in): it goes with the jail
        if (!jails.jailed()) TreeRemoval.removeRecursively(member.dir());
        claims.labelValues("warm").inc();
        return Optional.of(claimed);
    }

    /**
     * Holds the refill back until the returned hold is closed (or {@link #REFILL_HOLD_MAX} passed): taken by a bring-up
     * before it claims and closed once its VMM is handed over, so the member it took is replaced after that, not during.
     */
    public RefillHold holdRefill() {
        synchronized (refill) {
            holds++;
        }
        AtomicBoolean released = new AtomicBoolean();
        return () -> {
            if (!released.compareAndSet(false, true)) return;
            synchronized (refill) {
                holds--;
                refill.notifyAll();
            }
        };
    }

    /** Idle members ready to be claimed now. */
    int readyCount() { return ready.size(); }

    /** No claim: the caller starts a VMM cold, as no member can serve it (counted as a cold claim). */
    public Optional<ChvProcess> passOver() {
        claims.labelValues("cold").inc();
        return Optional.empty();
    }

    /**
     * A claimed member whose hand-over failed after the claim returned (it ran beside the bring-up): killed, its jail
     * released, its dir and the logs and socket the claim moved removed.
     */
    public void discardClaimed(Path memberDir, ChvProcess chv) {
        discard(new Member(memberDir, chv));
        deleteQuietly(chv.launch().logFile(), chv.launch().outputFile(), chv.launch().apiSocket());
    }

    private static void moveIfPresent(Path from, Path to) throws IOException {
        if (Files.exists(from)) Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void deleteQuietly(Path... files) {
        for (Path file : files) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                LOG.log(WARNING, "cannot remove " + file + ": " + e.getMessage());
            }
        }
    }

    private void refillLoop() {
        Duration backoff = Duration.ofMillis(500);
        while (!closed) {
            synchronized (refill) {
                try {
                    while (!closed && ready.size() >= size) refill.wait();
                    long holdEnds = System.nanoTime() + refillHoldMax.toNanos();
                    for (long left; !closed && holds > 0 && (left = holdEnds - System.nanoTime()) > 0; ) {
                        TimeUnit.NANOSECONDS.timedWait(refill, left);
                    }
                } catch (InterruptedException e) {
                    return;
                }
            }
            if (closed) return;
            try {
                Member member = startMember();
                ready.add(member);
                if (closed) discardAll();
                backoff = Duration.ofMillis(500);
            } catch (RuntimeException e) {
                LOG.log(WARNING, "cannot start a pooled cloud-hypervisor (retrying in " + backoff.toMillis() + " ms): " + e.getMessage());
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    return;
                }
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
            }
        }
    }

    private Member startMember() {
        Path dir = poolDir.resolve("m" + serial.incrementAndGet());
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        try {
            ChvProcess chv = ChvProcess.start(jails.jail(dir, new ChvLaunch(binary, dir.resolve("api.sock"), dir.resolve("chv.log"),
                    dir.resolve("chv.out"), 1, READY_TIMEOUT, Map.of())));
            try {
                jails.started(dir, chv);
            } catch (RuntimeException e) {
                chv.kill();
                throw e;
            }
            return new Member(dir, chv);
        } catch (RuntimeException e) {
            // the start killed what it started, or the jail was not made: either way nothing of it runs. A close's
            // interrupt would cut the clean-up's file I/O short (interruptible channels): it is kept for after it
            boolean interrupted = Thread.interrupted();
            try {
                jails.release(dir);
                TreeRemoval.removeRecursively(dir);
            } finally {
                if (interrupted) Thread.currentThread().interrupt();
            }
            throw e;
        }
    }

    private void wakeRefiller() {
        synchronized (refill) {
            refill.notifyAll();
        }
    }

    private void discard(Member member) {
        try {
            member.chv().kill();
        } finally {
            jails.release(member.dir());
            TreeRemoval.removeRecursively(member.dir());
        }
    }

    private void discardAll() {
        Member member;
        while ((member = ready.poll()) != null) discard(member);
    }

    /** Kills every process whose arguments name a path under {@code poolDir} (a previous daemon's idle members), then empties it. */
    private static void reclaim(Path poolDir) {
        if (!Files.isDirectory(poolDir)) return;
        String prefix = poolDir + "/";
        ProcessHandle.allProcesses().filter(p -> namesPathUnder(p.pid(), prefix)).forEach(p -> {
            LOG.log(INFO, "killing leftover pooled cloud-hypervisor pid " + p.pid());
            if (!ProcessKill.killTree(p, READY_TIMEOUT)) LOG.log(WARNING, "leftover pooled cloud-hypervisor pid " + p.pid() + " survived SIGKILL");
        });
        TreeRemoval.removeRecursively(poolDir);
    }

    private static boolean namesPathUnder(long pid, String prefix) {
        try {
            byte[] cmdline = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            return List.of(new String(cmdline, StandardCharsets.UTF_8).split("\0")).stream().anyMatch(arg -> arg.startsWith(prefix));
        } catch (IOException e) {
            return false;
        }
    }

    /** Stops the refill and kills the idle members; claimed ones belong to their sandboxes. */
    @Override
    public void close() {
        boolean filling;
        synchronized (this) {
            closed = true;
            filling = refiller.getState() != Thread.State.NEW;
        }
        if (size == 0) return; // never started
        // a pool that never filled (the daemon stopped before its tools were found) has no refiller to wait for: joining
        // an unstarted thread throws, which once skipped the rest of the daemon's stop (the jails' cgroups stayed)
        if (filling) {
            refiller.interrupt();
            try {
                refiller.join(Duration.ofSeconds(35));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        discardAll();
        TreeRemoval.removeRecursively(poolDir);
    }
}
