package dev.ateom.microvm.systeminfo;

import dev.ateom.microvm.systeminfo.source.SourceException;
import dev.ateom.microvm.systeminfo.source.VolumeAssembler;
import dev.ateom.microvm.systeminfo.spec.ActorIdentity;
import dev.ateom.microvm.systeminfo.spec.VolumeSpec;
import dev.ateom.microvm.systeminfo.sync.SourceWatcher;
import dev.ateom.microvm.systeminfo.sync.SyncFailureListener;
import dev.ateom.microvm.systeminfo.sync.SystemInfoMetrics;
import dev.ateom.microvm.systeminfo.volume.ContentDigest;
import dev.ateom.microvm.systeminfo.volume.VolumeWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Keeps a running sandbox's {@code hostDirectory} volumes equal to their sources: inotify events
 * are coalesced for {@link SystemInfoSettings#coalesceWindow()} and then the source is re-read and,
 * if its checksum changed, committed as a new generation ({@link VolumeWriter#commitWhileRunning});
 * every {@link SystemInfoSettings#reconcileInterval()} the volume on disk is compared with the
 * source by checksum and repaired. A failing source keeps the last good generation and is retried
 * every {@link SystemInfoSettings#retryInterval()}. One virtual thread per sandbox does all writes,
 * so a volume never has two writers.
 */
public final class SystemInfoSync implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SystemInfoSync.class.getName());
    private static final int ATTEMPTS = 3;

    private final String sandboxId;
    private final ActorIdentity identity;
    private final VolumeAssembler assembler;
    private final SystemInfoSettings settings;
    private final SystemInfoMetrics metrics;
    private final List<VolumeState> volumes = new ArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private volatile boolean closed;
    private boolean reconcileRequested;
    private Thread loop;
    private final CountDownLatch firstPass = new CountDownLatch(1);
    private volatile SyncFailureListener failures = SyncFailureListener.NONE;

    SystemInfoSync(String sandboxId, Map<VolumeSpec, VolumeWriter> writers, ActorIdentity identity,
                   VolumeAssembler assembler, SourceWatcher watcher, SystemInfoSettings settings, SystemInfoMetrics metrics) {
        this.sandboxId = sandboxId;
        this.identity = identity;
        this.assembler = assembler;
        this.settings = settings;
        this.metrics = metrics;
        writers.forEach((spec, writer) -> {
            VolumeState state = new VolumeState(spec, writer);
            state.watch = watcher.newHandle(() -> sourceChanged(state));
            volumes.add(state);
        });
    }

    /** Where a failure to apply a source change is reported (once per distinct failure); set before {@link #start}. */
    public void reportFailuresTo(SyncFailureListener listener) {
        this.failures = listener;
    }

    /** Starts syncing; the first pass reconciles every volume at once (changes made while it was stopped). */
    public void start() {
        lock.lock();
        try {
            if (loop != null || closed) {
                throw new IllegalStateException("sandbox " + sandboxId + ": system-info sync was already started");
            }
            reconcileRequested = true;
            if (volumes.isEmpty()) {
                firstPass.countDown(); // nothing mirrors a host directory: no thread
                loop = Thread.ofVirtual().unstarted(() -> { });
                return;
            }
            loop = Thread.ofVirtual().name("ateom-sync-" + sandboxId).start(this::run);
        } finally {
            lock.unlock();
        }
    }

    /** Asks for a reconciliation pass now instead of at the next interval. */
    public void reconcileNow() {
        lock.lock();
        try {
            reconcileRequested = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until the first pass (a reconciliation of every volume) has run; false on timeout. */
    public boolean awaitFirstPass(Duration timeout) throws InterruptedException {
        return firstPass.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** The volumes whose last sync failed, with the reason; empty when all are in step with their sources. */
    public Map<String, String> failingVolumes() {
        lock.lock();
        try {
            Map<String, String> out = new LinkedHashMap<>();
            volumes.stream().filter(v -> v.failure != null).forEach(v -> out.put(v.spec.name(), v.failure));
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops syncing and waits for a commit in progress to finish, so nothing is written after
     * this returns (the VM may be saved from then on). Idempotent.
     */
    @Override
    public void close() {
        Thread running;
        lock.lock();
        try {
            closed = true;
            wake.signalAll();
            running = loop;
        } finally {
            lock.unlock();
        }
        if (running != null) {
            boolean interrupted = false;
            while (running.isAlive()) {
                try {
                    running.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        // after the loop ended: a sync in progress re-registers its watches
        volumes.forEach(v -> v.watch.close());
    }

    private void sourceChanged(VolumeState volume) {
        lock.lock();
        try {
            if (volume.dirtySince == 0) {
                volume.dirtySince = System.nanoTime();
                wake.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Plans ({@link SyncPlanner}), waits until something is due, syncs it; until closed. */
    private void run() {
        long nextReconcile = System.nanoTime() + settings.reconcileInterval().toNanos();
        while (true) {
            SyncPlanner.Plan<VolumeState> plan;
            try {
                plan = awaitDue(nextReconcile);
            } catch (InterruptedException e) {
                return;
            }
            if (plan == null) return;
            nextReconcile = plan.nextReconcile();
            for (var task : plan.due().entrySet()) {
                if (closed) {
                    return; // the VM is about to be saved: leave the rest for the next sync's first pass
                }
                sync(task.getKey(), task.getValue());
            }
            firstPass.countDown();
        }
    }

    /** The next plan with something due, or null once closed. */
    private SyncPlanner.Plan<VolumeState> awaitDue(long nextReconcile) throws InterruptedException {
        lock.lock();
        try {
            while (!closed) {
                long now = System.nanoTime();
                Map<VolumeState, SyncPlanner.Marks> marks = new LinkedHashMap<>();
                volumes.forEach(v -> marks.put(v, new SyncPlanner.Marks(v.dirtySince, v.failure != null || v.unwatched, v.nextRetry)));
                SyncPlanner.Plan<VolumeState> plan = SyncPlanner.plan(now, reconcileRequested, nextReconcile, marks,
                        settings.coalesceWindow(), settings.reconcileInterval());
                if (plan.reconciles()) reconcileRequested = false;
                nextReconcile = plan.nextReconcile();
                if (!plan.due().isEmpty()) {
                    // events from here on mark the volume again: they may be newer than the read below
                    plan.due().keySet().forEach(v -> v.dirtySince = 0);
                    return plan;
                }
                wake.awaitNanos(Math.max(plan.wakeAt() - now, TimeUnit.MILLISECONDS.toNanos(1)));
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    private void sync(VolumeState volume, SyncPlanner.Task task) {
        Exception last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                syncOnce(volume, task);
                recovered(volume);
                return;
            } catch (SourceException | IOException | RuntimeException e) {
                last = e; // a kubelet update may delete what was just listed: read again
            }
        }
        failed(volume, last);
    }

    private void syncOnce(VolumeState volume, SyncPlanner.Task task) throws SourceException, IOException {
        // watch before reading, so a change made while reading is not missed
        volume.watch.watch(volume.watchDirs);
        VolumeAssembler.Assembly assembly = assembler.assemble(volume.spec, identity, Optional.empty());
        Set<Path> dirs = new HashSet<>(assembly.watchDirs());
        dirs.addAll(volume.sourceRoots);
        volume.watchDirs = dirs;
        // a directory that could not be watched (gone meanwhile) is looked at again after the retry interval
        volume.unwatched = !volume.watch.watch(dirs).isEmpty();
        if (!assembly.failures().isEmpty()) {
            throw new SourceException(assembly.failures().getFirst().toString());
        }
        String digest = ContentDigest.of(assembly.content());
        boolean checkDisk = task.reason() == SyncPlanner.Reason.RECONCILE || volume.lastDigest == null;
        boolean upToDate = checkDisk ? volume.writer.holds(assembly.content(), digest) : digest.equals(volume.lastDigest);
        if (!upToDate) {
            volume.writer.commitWhileRunning(assembly.content());
            metrics.committed(volume.spec.name());
            if (task.observedAt() != 0) {
                metrics.observeLag((System.nanoTime() - task.observedAt()) / 1e9);
            }
            if (task.reason() == SyncPlanner.Reason.RECONCILE && task.observedAt() == 0) { // with an event pending it is no repair
                metrics.repaired(volume.spec.name());
                LOG.log(System.Logger.Level.INFO, "sandbox {0} volume {1}: reconciliation repaired a difference from its source",
                        sandboxId, volume.spec.name());
            }
        }
        volume.lastDigest = digest;
    }

    private void recovered(VolumeState volume) {
        lock.lock();
        try {
            if (volume.failure != null) {
                LOG.log(System.Logger.Level.INFO, "sandbox {0} volume {1}: in step with its source again", sandboxId, volume.spec.name());
            }
            volume.failure = null;
            volume.nextRetry = System.nanoTime() + settings.retryInterval().toNanos();
        } finally {
            lock.unlock();
        }
    }

    private void failed(VolumeState volume, Exception e) {
        metrics.failed(volume.spec.name());
        String message = Objects.toString(e.getMessage(), e.toString());
        boolean distinct;
        lock.lock();
        try {
            distinct = !message.equals(volume.failure);
            volume.failure = message;
            volume.nextRetry = System.nanoTime() + settings.retryInterval().toNanos();
        } finally {
            lock.unlock();
        }
        if (distinct) {
            LOG.log(System.Logger.Level.WARNING, "sandbox {0} volume {1}: keeping the last good generation: {2}",
                    sandboxId, volume.spec.name(), message);
            failures.syncFailed(sandboxId, volume.spec.name(), message);
        }
    }

    /** Mutable state of one volume; fields guarded by {@code lock} except those only the loop touches. */
    private static final class VolumeState {
        final VolumeSpec spec;
        final VolumeWriter writer;
        SourceWatcher.Handle watch;
        long dirtySince; // 0 = clean
        long nextRetry;
        String failure; // null = healthy
        String lastDigest; // loop thread only
        final Set<Path> sourceRoots = new HashSet<>();
        Set<Path> watchDirs; // loop thread only
        volatile boolean unwatched;

        VolumeState(VolumeSpec spec, VolumeWriter writer) {
            this.spec = spec;
            this.writer = writer;
            spec.sources().stream().filter(s -> s.hostDirectory() != null)
                    .forEach(s -> sourceRoots.add(Path.of(s.hostDirectory().path())));
            this.watchDirs = Set.copyOf(sourceRoots);
        }
    }
}
