package dev.ateom.microvm.remote;

import dev.ateom.microvm.config.RemoteStoreConfig;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.sandbox.NotFoundException;
import dev.ateom.microvm.sandbox.PullFor;
import dev.ateom.microvm.sandbox.RemoteStoreException;
import dev.ateom.microvm.sandbox.SandboxLeases;
import dev.ateom.microvm.sandbox.SandboxSpecValidator;
import dev.ateom.microvm.sandbox.SnapshotFetcher;
import dev.ateom.microvm.timing.OperationProgress;
import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotStore;
import dev.ateom.store.CpuInfo;
import dev.ateom.store.CpuProfile;
import dev.ateom.store.GcReport;
import dev.ateom.store.Lease;
import dev.ateom.store.LeaseHeldException;
import dev.ateom.store.LeaseMode;
import dev.ateom.store.LeaseVerdict;
import dev.ateom.store.LeaseVerdicts;
import dev.ateom.store.ProbeResult;
import dev.ateom.store.PullOptions;
import dev.ateom.store.PullResult;
import dev.ateom.store.PushListener;
import dev.ateom.store.PushStatus;
import dev.ateom.store.RemoteSnapshotStore;
import dev.ateom.store.RemoteSnapshotSummary;
import dev.ateom.store.TransferState;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The daemon's side of the snapshot store: push (on request or after every suspend), pull of snapshots that are
 * not on this host, the store's listing, remote delete and gc, leases and the store's lease verdict. Store errors
 * become domain errors naming the setting to blame; a store that is not configured, could not be opened, or does not
 * give back what is written to it makes every store operation a clear problem while the local features work as
 * without a store.
 */
public final class RemoteSnapshots implements SnapshotFetcher, SandboxLeases, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RemoteSnapshots.class.getName());

    private final RemoteStoreConfig config;
    private final RemoteSnapshotStore store;
    private volatile RemoteStoreException unusable;
    private final SnapshotStore local;
    /** This host's CHV version as manifests record it, empty when unknown (then pulls do not compare it). */
    private final Supplier<Optional<String>> chvVersion;
    private final StoreMetrics metrics;
    private volatile ProbeResult probedAtStart;
    private Consumer<String> beforePush = sandboxId -> { };
    private Consumer<String> beforeVisibleAfterSuspend = sandboxId -> { };

    private RemoteSnapshots(RemoteStoreConfig config, RemoteSnapshotStore store, RemoteStoreException unusable, SnapshotStore local,
                            Supplier<Optional<String>> chvVersion, StoreMetrics metrics) {
        this.config = config;
        this.store = store;
        this.unusable = unusable;
        this.local = local;
        this.chvVersion = chvVersion;
        this.metrics = metrics;
    }

    /** No {@code --snapshot-store}: every store operation answers that none is configured. */
    public static RemoteSnapshots notConfigured() {
        return new RemoteSnapshots(null, null, new RemoteStoreException(RemoteStoreException.Kind.NOT_CONFIGURED,
                "no snapshot store is configured on this host", "snapshot-store", null), null, null, null);
    }

    /**
     * Opens the store client and the chunk cache ({@code <state>/chunks}), checks access and probes conditional writes,
     * logging what it found. Never fails the start: a store that cannot be used is warned about, naming the option.
     */
    public static RemoteSnapshots start(RemoteStoreConfig config, Path stateDir, SnapshotStore local,
                                        Supplier<Optional<String>> chvVersion, PrometheusRegistry registry) {
        String location = config.settings().location().toString();
        RemoteSnapshotStore store;
        try {
            store = RemoteSnapshotStore.open(config.settings(), stateDir.resolve("chunks"), config.cacheBytes());
        } catch (IOException e) {
            RuntimeException failure = StoreFailures.of("snapshot store " + location + " cannot be used", null, e);
            LOG.log(WARNING, failure.getMessage() + "; store operations will fail, local snapshots work as usual");
            RemoteStoreException unusable = failure instanceof RemoteStoreException r ? r
                    : new RemoteStoreException(RemoteStoreException.Kind.REFUSED, failure.getMessage(), null, e);
            return new RemoteSnapshots(config, null, unusable, local, null, null);
        }
        StoreAtStart.Findings findings = StoreAtStart.check(store, config);
        RemoteSnapshots remote = new RemoteSnapshots(config, store, findings.unusable(), local, chvVersion,
                new StoreMetrics(registry, store.chunkCache()));
        remote.probedAtStart = findings.probe();
        return remote;
    }

    public boolean configured() { return config != null; }

    /**
     * What every snapshot records about this host while a store is configured: the CPU (a restore host must match
     * it; pushes carry it into the remote manifest). Empty when /proc/cpuinfo cannot be read: the push then reads it.
     */
    public Map<String, String> snapshotAnnotations() {
        try {
            return Map.of(CpuProfile.ANNOTATION, ApiJson.mapper().writeValueAsString(CpuInfo.current()));
        } catch (IOException e) {
            LOG.log(WARNING, "cannot record this host's CPU in snapshots: " + e.getMessage());
            return Map.of();
        }
    }

    /** {@code GET /v1/store}: where the store is, whether it can be used, what the probe found. */
    public Map<String, Object> describe() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("configured", configured());
        if (!configured()) return out;
        out.put("location", config.settings().location().toString());
        config.settings().endpoint().ifPresent(endpoint -> out.put("endpoint", endpoint.toString()));
        out.put("hostId", config.hostId());
        out.put("pushOnSuspend", config.pushOnSuspend());
        out.put("leases", config.settings().leases() == LeaseMode.OFF ? "off" : "on");
        if (unusable != null) {
            out.put("usable", false);
            out.put("error", unusable.detail());
            return out;
        }
        try {
            store.checkAccess();
            out.put("usable", true);
            out.put("leaseVerdict", LeaseVerdictView.of(store.leaseVerdicts().read()));
        } catch (IOException e) {
            out.put("usable", false);
            out.put("error", e.getMessage());
        }
        ProbeResult probe = probedAtStart;
        if (probe != null) {
            out.put("conditionalWrites", Map.of("result", probe.conditionalWrites(), "detail", probe.detail(), "requests", probe.requests(),
                    "tookMs", probe.took().toMillis()));
        }
        out.put("chunkCache", store.chunkCache().stats());
        return out;
    }

    /**
     * {@code POST /v1/store/lease-verdict/reset} ({@code ateom store-reset-verdict}): an operator says the store's
     * verdict no longer holds (the store was fixed or replaced). Every verdict object is deleted, then this host probes
     * again and records what it finds, which every host uses from its next lease decision on.
     */
    public Map<String, Object> resetLeaseVerdict() {
        RemoteSnapshotStore remote = usable();
        try {
            LeaseVerdict before = remote.leaseVerdicts().read();
            int deleted = remote.leaseVerdicts().reset();
            LeaseVerdicts.Established after = remote.leaseVerdicts().establish(config.hostId());
            after.probe().ifPresent(probe -> probedAtStart = probe);
            LOG.log(WARNING, "lease verdict of snapshot store " + config.settings().location() + " reset by an operator on host "
                    + config.hostId() + " (was " + before.describe() + "; " + deleted + " verdict objects deleted); probed again: "
                    + after.verdict().describe() + after.probe().map(p -> " (" + p.cost() + ")").orElse(""));
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("previous", LeaseVerdictView.of(before));
            out.put("deletedObjects", deleted);
            out.put("leaseVerdict", LeaseVerdictView.of(after.verdict()));
            return out;
        } catch (IOException e) {
            throw StoreFailures.of("resetting the lease verdict", null, e);
        }
    }

    // ------------------------------------------------------------------ push

    /** Starts a push of a local snapshot in the background and answers at once with its state. */
    public RemoteState push(String snapshotId) {
        RemoteSnapshotStore remote = usable();
        Snapshot snapshot = localSnapshot(snapshotId).orElseThrow(() -> NotFoundException.snapshot(snapshotId));
        Optional<PushStatus> running = remote.pushStatus(snapshotId)
                .filter(status -> status.state() == TransferState.PENDING || status.state() == TransferState.RUNNING);
        if (running.isPresent()) return RemoteState.of(running.get());
        beforePush.accept(snapshot.manifest().source().sandboxId());
        startPush(remote, snapshot, PushListener.NONE);
        return remote.pushStatus(snapshotId).map(RemoteState::of).orElse(RemoteState.notPushed());
    }

    /**
     * Called with the sandbox id before a push on request sends anything (the sandbox is marked in the store and, when
     * it runs here, takes its lease); may refuse the push by throwing.
     */
    public void beforePushing(Consumer<String> hook) { this.beforePush = hook; }

    /**
     * Called with the sandbox id by a push after a suspend ({@code --push-on-suspend}) just before its snapshot becomes
     * visible in the store (the manifest), not before: a push that never reached the store marks nothing. May refuse
     * by throwing (the push fails, no manifest).
     */
    public void beforeVisibleAfterSuspend(Consumer<String> hook) { this.beforeVisibleAfterSuspend = hook; }

    /** After a suspend's commit, with {@code --push-on-suspend}: a background push (its failure is logged and shown, never thrown). */
    public void pushAfterSuspend(String snapshotId) {
        if (!configured() || !config.pushOnSuspend()) return;
        if (unusable != null) {
            LOG.log(WARNING, "snapshot " + snapshotId + " not pushed: " + unusable.detail());
            return;
        }
        try {
            localSnapshot(snapshotId).ifPresent(snapshot -> startPush(store, snapshot, new PushListener() {
                @Override
                public void onProgress(PushStatus status) { }

                @Override
                public void beforeVisible(String id) {
                    beforeVisibleAfterSuspend.accept(snapshot.manifest().source().sandboxId());
                }
            }));
        } catch (RuntimeException e) {
            LOG.log(WARNING, "snapshot " + snapshotId + " not pushed: " + e.getMessage());
        }
    }

    private void startPush(RemoteSnapshotStore remote, Snapshot snapshot, PushListener listener) {
        long started = System.nanoTime();
        LOG.log(INFO, "pushing snapshot " + snapshot.id() + " to " + config.settings().location());
        remote.pushInBackground(snapshot, listener).whenComplete((status, failure) -> {
            double seconds = (System.nanoTime() - started) / 1e9;
            if (failure == null) {
                metrics.pushed(status, seconds);
                LOG.log(INFO, "pushed snapshot " + snapshot.id() + " in " + Math.round(seconds * 1000) + " ms: " + status.bytesUploaded()
                        + " bytes uploaded, " + status.bytesDeduplicated() + " bytes already in the store");
            } else {
                metrics.failed("push", seconds);
                LOG.log(WARNING, "push of snapshot " + snapshot.id() + " failed: " + failure.getMessage()
                        + "; a retry (POST /v1/snapshots/" + snapshot.id() + "/push) sends only the chunks the store lacks");
            }
        });
    }

    /** What {@code GET /v1/snapshots/{id}} shows under {@code remote}; empty when no store is configured. */
    public Optional<RemoteState> stateOf(String snapshotId) {
        if (!configured()) return Optional.empty();
        if (unusable != null) return Optional.of(RemoteState.unknown(unusable.detail()));
        Optional<PushStatus> push = store.pushStatus(snapshotId);
        if (push.isPresent()) return Optional.of(RemoteState.of(push.get()));
        try {
            return Optional.of(store.describe(snapshotId).isPresent() ? RemoteState.inStore() : RemoteState.notPushed());
        } catch (IOException e) {
            return Optional.of(RemoteState.unknown(e.getMessage()));
        }
    }

    /** {@link #stateOf} for many snapshots with one listing of the store (for {@code GET /v1/snapshots}). */
    public Map<String, RemoteState> statesOf(List<String> snapshotIds) {
        Map<String, RemoteState> states = new LinkedHashMap<>();
        if (!configured()) return states;
        Set<String> inStore = Set.of();
        String error = unusable != null ? unusable.detail() : null;
        if (error == null) {
            try {
                inStore = store.list().stream().map(RemoteSnapshotSummary::snapshotId).collect(Collectors.toSet());
            } catch (IOException e) {
                error = e.getMessage();
            }
        }
        for (String id : snapshotIds) {
            Optional<PushStatus> push = unusable != null ? Optional.empty() : store.pushStatus(id);
            states.put(id, push.map(RemoteState::of).orElse(error != null ? RemoteState.unknown(error)
                    : inStore.contains(id) ? RemoteState.inStore() : RemoteState.notPushed()));
        }
        return states;
    }

    // ------------------------------------------------------------------ pull

    @Override
    public void fetch(String snapshotId, boolean allowCpuMismatch, PullFor purpose) {
        RemoteSnapshotStore remote = usable();
        try {
            new PullAdmission(remote, config.hostId()).check(snapshotId, purpose, heldWhileRunning());
        } catch (IOException e) {
            RuntimeException refusal = StoreFailures.of("snapshot " + snapshotId + " (nothing was pulled)", snapshotId, e);
            LOG.log(INFO, "snapshot " + snapshotId + " not pulled: " + refusal.getMessage());
            throw refusal;
        }
        PullOptions options = chvVersion.get().map(PullOptions::forHost).orElse(new PullOptions(Optional.empty(), false, false));
        if (chvVersion.get().isEmpty()) LOG.log(WARNING, "pull of snapshot " + snapshotId + ": this host's CHV version is unknown, not compared");
        if (allowCpuMismatch) options = options.allowingCpuMismatch();
        long started = System.nanoTime();
        LOG.log(INFO, "snapshot " + snapshotId + " is not on this host: pulling it from " + config.settings().location());
        OperationProgress progress = OperationProgress.current(); // an asynchronous clone shows the pull's bytes
        progress.step("pull");
        try {
            PullResult result = remote.pull(snapshotId, local, options, status -> progress.bytes(status.doneBytes(), status.totalBytes()));
            double seconds = (System.nanoTime() - started) / 1e9;
            metrics.pulled(result.status(), seconds);
            result.allowedMismatches().forEach(m -> LOG.log(WARNING, "snapshot " + snapshotId + " pulled although " + m.describe()
                    + " (allowCpuMismatch)"));
            LOG.log(INFO, "pulled snapshot " + snapshotId + " in " + Math.round(seconds * 1000) + " ms: "
                    + result.status().bytesDownloaded() + " bytes downloaded, " + result.status().bytesFromCache() + " bytes from the chunk cache");
        } catch (IOException e) {
            metrics.failed("pull", (System.nanoTime() - started) / 1e9);
            RuntimeException failure = StoreFailures.of("pull of snapshot " + snapshotId, snapshotId, e);
            LOG.log(WARNING, failure.getMessage() + "; nothing of it was kept");
            throw failure;
        }
    }

    // ------------------------------------------------------------------ leases

    /** Leases enforced: every sandbox holds its lease while it runs here (docs/decisions.md, "lease while running"). */
    @Override
    public boolean heldWhileRunning() {
        // not probed yet (the store was unreachable at start): assumed to hold, so a sandbox that has been in the store
        // does not run unchecked after a restart during an outage; the first take probes (LeaseKeeper)
        return unusable == null && config.settings().leases() == LeaseMode.ENFORCED
                && store.leaseVerdicts().last().map(verdict -> !verdict.isFinal()).orElse(true);
    }

    @Override
    public void acquire(String sandboxId) {
        RemoteSnapshotStore remote = usable();
        try {
            Lease lease = remote.leases().acquire(sandboxId, config.hostId());
            LOG.log(lease.enforced() ? INFO : WARNING, lease.enforced()
                    ? "holding the lease of sandbox " + sandboxId + " for host " + config.hostId()
                    : "adopting sandbox " + sandboxId + " without a lease (--snapshot-store-leases=off): keep other hosts from running it");
        } catch (IOException e) {
            throw StoreFailures.of("lease of sandbox " + sandboxId + " (nothing of it was started on this host)", null, e);
        }
    }

    @Override
    public void release(String sandboxId) {
        if (unusable != null || config.settings().leases() == LeaseMode.OFF) return;
        try {
            if (store.leases().holder(sandboxId).filter(lease -> lease.hostId().equals(config.hostId())).isPresent()) {
                store.leases().release(sandboxId, config.hostId());
                LOG.log(INFO, "released the lease of sandbox " + sandboxId);
            }
        } catch (IOException e) {
            LOG.log(WARNING, "cannot release the lease of sandbox " + sandboxId + ": " + e.getMessage() + "; remove "
                    + "leases/" + sandboxId + " from the store before another host adopts it");
        }
    }

    /** A store that cannot be asked does not stop a resume here (logged): availability of this host's sandboxes comes first. */
    @Override
    public void requireNotHeldByAnother(String sandboxId) {
        if (unusable != null || config.settings().leases() == LeaseMode.OFF) return;
        try {
            store.leases().requireNotHeldByAnother(sandboxId, config.hostId());
        } catch (LeaseHeldException e) {
            throw StoreFailures.of("resume of sandbox " + sandboxId, null, e);
        } catch (IOException e) {
            LOG.log(WARNING, "cannot check the lease of sandbox " + sandboxId + " (" + e.getMessage() + "); resuming it");
        }
    }

    // ------------------------------------------------------------------ listing, delete, gc

    /** {@code GET /v1/snapshots?remote=true}: the snapshots in the store, by id. */
    public List<RemoteSnapshotSummary> list() {
        try {
            return usable().list();
        } catch (IOException e) {
            throw StoreFailures.of("listing the snapshot store", null, e);
        }
    }

    /** Removes a snapshot's manifest from the store; its chunks go at the next gc unless other snapshots use them. */
    public void delete(String snapshotId) {
        try {
            if (!usable().delete(snapshotId)) throw NotFoundException.snapshot(snapshotId);
            LOG.log(INFO, "deleted snapshot " + snapshotId + " from " + config.settings().location());
        } catch (IOException e) {
            throw StoreFailures.of("remote delete of snapshot " + snapshotId, snapshotId, e);
        }
    }

    public GcResult gc() {
        try {
            GcReport report = usable().gc();
            LOG.log(INFO, "store gc: removed " + report.removed().size() + " chunks (" + report.bytesRemoved() + " bytes), kept "
                    + report.keptYoung() + " young unreferenced ones, " + report.missing().size() + " referenced chunks missing");
            return GcResult.of(report);
        } catch (IOException e) {
            throw StoreFailures.of("store gc", null, e);
        }
    }

    private RemoteSnapshotStore usable() {
        RemoteStoreException refusal = unusable;
        if (refusal != null) throw new RemoteStoreException(refusal.kind(), refusal.detail(), refusal.option(), refusal.getCause());
        return store;
    }

    private Optional<Snapshot> localSnapshot(String snapshotId) {
        if (!SandboxSpecValidator.SNAPSHOT_ID.matcher(snapshotId).matches()) return Optional.empty();
        try {
            return local.get(snapshotId);
        } catch (IOException e) {
            throw StoreFailures.of("reading local snapshot " + snapshotId, snapshotId, e);
        }
    }

    @Override
    public void close() {
        if (store != null) store.close();
    }
}
