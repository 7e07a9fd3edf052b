package dev.ateom.store;

import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * The snapshot store shared by many hosts: an S3 bucket (or a prefix of one) holding content-addressed chunks
 * and one manifest per snapshot. This is the daemon's entry point; the remote format is in snapshot-store/README.md.
 *
 * <pre>
 * RemoteSnapshotStore remote = RemoteSnapshotStore.open(settings, stateDir.resolve("chunks"), cacheBytes);
 * remote.checkAccess();                                   // at start: typed error naming the setting, else fine
 * remote.checkRoundTrip();                                // at start: the store gives back what is written to it
 * remote.leaseVerdicts().establish(hostId);               // at start: can leases be had? (shared by every host)
 * remote.pushInBackground(snapshot);  remote.pushStatus(id);  remote.push(snapshot, listener);
 * remote.pull(id, localStore, PullOptions.forHost(chvVersion), listener);   // then restore from the local snapshot
 * remote.leases().acquire(sandboxId, hostId);  remote.leases().release(sandboxId, hostId);
 * remote.list();  remote.describe(id);  remote.delete(id);  remote.gc(grace);
 * </pre>
 */
public final class RemoteSnapshotStore implements AutoCloseable {
    private final StoreSettings settings;
    private final S3Objects objects;
    private final StoreKeys keys;
    private final ChunkCache cache;
    private final ExecutorService transfers;
    private final ExecutorService coordinators;
    private final Pusher pusher;
    private final Puller puller;
    private final GarbageCollector collector;
    private final LeaseVerdicts verdicts;
    private final Leases leases;
    private final Map<String, PushStatus> pushes = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<PushStatus>> runningPushes = new ConcurrentHashMap<>();

    private RemoteSnapshotStore(StoreSettings settings, S3Objects objects, ChunkCache cache, CpuProfile hostCpu, Clock clock) {
        this.settings = settings;
        this.objects = objects;
        this.keys = new StoreKeys(settings.location());
        this.cache = cache;
        AtomicInteger threadNumber = new AtomicInteger();
        this.transfers = Executors.newFixedThreadPool(settings.parallelism(), runnable -> {
            Thread thread = new Thread(runnable, "store-transfer-" + threadNumber.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.coordinators = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("store-push-", 0).factory());
        this.pusher = new Pusher(objects, keys, transfers, settings.parallelism(), settings.gcGrace(), () -> hostCpu, clock,
                settings.verifyPushes());
        this.puller = new Puller(objects, keys, cache, transfers, settings.parallelism(), () -> hostCpu);
        this.collector = new GarbageCollector(objects, keys, transfers, settings.parallelism(), clock);
        this.verdicts = new LeaseVerdicts(objects, keys, this::probe, clock);
        this.leases = new Leases(objects, keys, settings.leases(), verdicts, clock);
    }

    /**
     * Builds the client and opens the chunk cache; contacts nothing yet (see {@link #checkAccess()}).
     *
     * @throws StoreConfigException      a setting cannot be used (names it)
     * @throws StoreCredentialsException no credentials were found
     */
    public static RemoteSnapshotStore open(StoreSettings settings, Path chunkCacheDir, long chunkCacheBytes) throws IOException {
        return open(settings, chunkCacheDir, chunkCacheBytes, CpuInfo.current());
    }

    /** As {@link #open(StoreSettings, Path, long)}, with the CPU this host reports (tests stand in for another host). */
    public static RemoteSnapshotStore open(StoreSettings settings, Path chunkCacheDir, long chunkCacheBytes, CpuProfile hostCpu)
            throws IOException {
        AwsCredentialsProvider credentials = S3ClientFactory.credentials(settings);
        S3ClientFactory.requireCredentials(credentials);
        ChunkCache cache = ChunkCache.open(chunkCacheDir, chunkCacheBytes);
        return new RemoteSnapshotStore(settings, new S3Objects(S3ClientFactory.create(settings, credentials), settings.location()), cache,
                hostCpu, Clock.systemUTC());
    }

    public StoreSettings settings() {
        return settings;
    }

    /** One request (HEAD bucket): the endpoint answers, the bucket exists, the credentials are accepted. */
    public void checkAccess() throws StoreException {
        objects.headBucket();
    }

    /**
     * Writes a probe object and reads it back byte for byte.
     *
     * @throws StoreDamagesDataException the store gives back something else: it cannot be used (says what came back)
     */
    public void checkRoundTrip() throws StoreException {
        new RoundTripProbe(objects, keys).run();
    }

    /** Probes conditional writes now and records nothing (the fleet's verdict is {@link #leaseVerdicts()}'s). */
    public ProbeResult probe() throws IOException {
        return new StoreProbe(objects, keys, StoreProbe.DEFAULT_ROUNDS).run();
    }

    /** The store's lease verdict, shared by every host: read, establish at start, reset by an operator. */
    public LeaseVerdicts leaseVerdicts() {
        return verdicts;
    }

    /** Pushes a committed local snapshot and waits; a snapshot already in the store (same manifest) returns at once. */
    public PushStatus push(Snapshot snapshot, PushListener listener) throws IOException {
        return pusher.push(snapshot, new PushListener() {
            @Override
            public void onProgress(PushStatus status) {
                pushes.put(status.snapshotId(), status);
                listener.onProgress(status);
            }

            @Override
            public void beforeVisible(String snapshotId) throws IOException {
                listener.beforeVisible(snapshotId);
            }
        });
    }

    /**
     * Starts a push and returns at once; {@link #pushStatus} shows it (pending, then pushing, then pushed or failed).
     * A push of the same snapshot already running is joined, not repeated.
     */
    public CompletableFuture<PushStatus> pushInBackground(Snapshot snapshot) {
        return pushInBackground(snapshot, PushListener.NONE);
    }

    /** {@link #pushInBackground(Snapshot)}, telling {@code listener} (of a push this call starts, not of one it joins). */
    public CompletableFuture<PushStatus> pushInBackground(Snapshot snapshot, PushListener listener) {
        String id = snapshot.id();
        CompletableFuture<PushStatus> created = new CompletableFuture<>();
        CompletableFuture<PushStatus> running = runningPushes.putIfAbsent(id, created);
        if (running != null) {
            return running;
        }
        pushes.put(id, PushStatus.pending(id));
        try {
            coordinators.execute(() -> {
                try {
                    PushStatus status = push(snapshot, listener);
                    runningPushes.remove(id, created);
                    created.complete(status);
                } catch (IOException | RuntimeException | Error e) {
                    runningPushes.remove(id, created);
                    created.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            runningPushes.remove(id, created);
            pushes.put(id, TransferProgress.push(id, PushListener.NONE).fail(e));
            created.completeExceptionally(e);
        }
        return created;
    }

    /** The latest status of a push this process ran or runs. */
    public Optional<PushStatus> pushStatus(String snapshotId) {
        return Optional.ofNullable(pushes.get(snapshotId));
    }

    /**
     * Makes a snapshot of the store a committed, verified local snapshot (or returns the local one if present).
     *
     * @throws HostMismatchException            the host differs and the options do not allow it (names each difference)
     * @throws ChunkException                   a chunk is missing or corrupt (names it); nothing was committed
     * @throws RemoteSnapshotNotFoundException  no such snapshot in the store
     */
    public PullResult pull(String snapshotId, SnapshotStore local, PullOptions options, PullListener listener) throws IOException {
        return puller.pull(snapshotId, local, options, listener);
    }

    /** The snapshots in the store, by id. */
    public List<RemoteSnapshotSummary> list() throws IOException {
        List<RemoteSnapshotSummary> snapshots = new ArrayList<>();
        for (ObjectInfo object : objects.list(keys.snapshotsPrefix())) {
            String id = keys.snapshotIdOf(object.key());
            if (id != null) {
                snapshots.add(new RemoteSnapshotSummary(id, object.lastModified(), object.size()));
            }
        }
        snapshots.sort(Comparator.comparing(RemoteSnapshotSummary::snapshotId));
        return snapshots;
    }

    /** A snapshot's remote manifest: its local manifest, host requirements and chunk lists. */
    public Optional<RemoteManifest> describe(String snapshotId) throws IOException {
        Optional<byte[]> bytes = objects.get(keys.manifest(snapshotId), RemoteManifestCodec.MAX_MANIFEST_BYTES);
        return bytes.isEmpty() ? Optional.empty() : Optional.of(RemoteManifestCodec.read(snapshotId, bytes.get()));
    }

    /** Removes a snapshot from the store (its manifest; its chunks go at the next gc unless others use them). */
    public boolean delete(String snapshotId) throws IOException {
        String key = keys.manifest(snapshotId);
        if (objects.head(key).isEmpty()) {
            return false;
        }
        objects.delete(key);
        return true;
    }

    /** Deletes chunks no manifest references that are older than the configured grace. */
    public GcReport gc() throws IOException {
        return gc(settings.gcGrace());
    }

    /** As {@link #gc()} with another grace; a grace shorter than a running push takes is unsafe for that push. */
    public GcReport gc(Duration grace) throws IOException {
        return collector.collect(grace);
    }

    public Leases leases() {
        return leases;
    }

    public ChunkCache chunkCache() {
        return cache;
    }

    /** Stops the transfer threads (running transfers fail) and closes the client. */
    @Override
    public void close() {
        coordinators.shutdownNow();
        transfers.shutdownNow();
        objects.close();
    }
}
