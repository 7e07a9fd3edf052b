package dev.ateom.store;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.snapshot.Manifest;
import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotLayout;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

/**
 * Pushes one local snapshot: cuts its files into chunks (reading each file once), and for every distinct chunk
 * checks the store (HEAD) and uploads it compressed only if absent, in parallel; then writes the manifest, last.
 * A push that failed leaves its uploaded chunks, so the next attempt sends only what is still missing.
 *
 * <p>A push proves what it wrote before it counts as pushed (unless {@code verifyPushes} is off, to measure its cost):
 * every chunk it uploads is looked at again (HEAD: the store keeps exactly as many bytes as were sent), a chunk the store
 * already has is taken only if its size is that of this host's frame of its bytes or, when not, if it reads back and
 * decompresses to its hash (a store that died in the middle of a write may keep a truncated object), a sample of
 * {@link #SAMPLED_CHUNKS} of the chunks its manifest references is read back and decompressed against its hash, and the
 * manifest is read back byte for byte. A damaged object found so is deleted (so no later push counts it as stored)
 * and the push fails; a damaged manifest never stays visible. Bodies are fixed-length with their Content-MD5
 * ({@link S3Objects#put}), which stores that check it refuse when they do not receive what was sent.
 *
 * <p>Against gc: a chunk the store already had but that is older than half the gc grace is copied onto itself
 * (its Last-Modified becomes now), and before the manifest is written every chunk confirmed longer than half the
 * grace ago is confirmed again; so from the moment gc could see it unreferenced to the moment the manifest
 * references it, each chunk is younger than the grace, and gc keeps it.
 */
final class Pusher {
    /** Chunks read back per push: a damaged store shows on any of them (the probe found s3rver damaging every upload). */
    static final int SAMPLED_CHUNKS = 2;

    private final S3Objects objects;
    private final StoreKeys keys;
    private final ExecutorService pool;
    private final int parallelism;
    private final Duration confirmWindow;
    private final Supplier<CpuProfile> hostCpu;
    private final Clock clock;
    private final boolean verify;

    Pusher(S3Objects objects, StoreKeys keys, ExecutorService pool, int parallelism, Duration gcGrace, Supplier<CpuProfile> hostCpu,
           Clock clock, boolean verify) {
        this.objects = objects;
        this.keys = keys;
        this.pool = pool;
        this.parallelism = parallelism;
        this.confirmWindow = gcGrace.dividedBy(2);
        this.hostCpu = hostCpu;
        this.clock = clock;
        this.verify = verify;
    }

    PushStatus push(Snapshot snapshot, PushListener listener) throws IOException {
        TransferProgress<PushStatus> progress = TransferProgress.push(snapshot.id(), listener);
        try {
            return run(snapshot, progress, listener);
        } catch (IOException | RuntimeException | Error e) {
            progress.fail(e);
            throw e;
        }
    }

    private PushStatus run(Snapshot snapshot, TransferProgress<PushStatus> progress, PushListener listener) throws IOException {
        JsonNode local = RemoteManifestCodec.localToTree(snapshot.manifest());
        Optional<byte[]> existing = objects.get(keys.manifest(snapshot.id()), RemoteManifestCodec.MAX_MANIFEST_BYTES);
        if (existing.isPresent() && readable(snapshot.id(), existing.get()).isPresent()) {
            RemoteManifest stored = readable(snapshot.id(), existing.get()).get();
            if (!RemoteManifestCodec.local(stored).equals(snapshot.manifest())) {
                throw new RemoteSnapshotConflictException(snapshot.id());
            }
            listener.beforeVisible(snapshot.id());
            progress.start(0);
            return progress.finish();
        }
        // a manifest that cannot be read (damaged by a store, or planted) is no snapshot: this push replaces it
        SnapshotLayout layout = snapshot.layout();
        long total = 0;
        for (String path : SnapshotLayout.CONTENT_FILES) {
            total += Files.size(layout.directory().resolve(path));
        }
        progress.start(total);

        Upload upload = new Upload(progress);
        List<FilePieces> files = new ArrayList<>();
        try (BoundedTasks tasks = new BoundedTasks(pool, 2 * parallelism)) {
            for (String path : SnapshotLayout.CONTENT_FILES) {
                Path file = layout.directory().resolve(path);
                FilePieces pieces = new FilePieces(path, file, Files.size(file),
                        path.equals(SnapshotLayout.MEMORY_RANGES) ? MemoryChunker.NAME : FastCdc.NAME, new ArrayList<>());
                files.add(pieces);
                ChunkSink sink = new ChunkSink() {
                    @Override
                    public void data(PlainChunk chunk) throws IOException {
                        CompletableFuture<ChunkHash> hash = new CompletableFuture<>();
                        pieces.pieces().add(new Piece(chunk.offset(), chunk.length(), hash));
                        tasks.submit(() -> hash.complete(upload.store(file, chunk)));
                    }

                    @Override
                    public void hole(long offset, long length) {
                        pieces.pieces().add(new Piece(offset, length, null));
                        progress.zeros(length);
                    }
                };
                if (path.equals(SnapshotLayout.MEMORY_RANGES)) {
                    MemoryChunker.chunk(file, sink);
                } else {
                    ArchiveChunker.chunk(file, sink);
                }
            }
            tasks.awaitAll();
        }
        upload.reconfirmStale();
        if (verify) {
            upload.readBackSample();
        }
        RemoteManifest manifest = new RemoteManifest(RemoteManifest.FORMAT_VERSION, snapshot.id(), clock.instant(),
                new HostRequirements(snapshot.manifest().chvVersion(), cpuOf(snapshot.manifest())), upload.storedBytes(),
                files.stream().map(FilePieces::toRemote).toList(), local);
        listener.beforeVisible(snapshot.id());
        byte[] manifestBytes = RemoteManifestCodec.toBytes(manifest);
        objects.put(keys.manifest(snapshot.id()), manifestBytes);
        if (verify) {
            requireStoredAsSent(keys.manifest(snapshot.id()), manifestBytes);
        }
        return progress.finish();
    }

    private static Optional<RemoteManifest> readable(String snapshotId, byte[] bytes) {
        try {
            return Optional.of(RemoteManifestCodec.read(snapshotId, bytes));
        } catch (RemoteFormatException e) {
            return Optional.empty();
        }
    }

    /** The manifest read back byte for byte; a damaged one is deleted at once, so no host ever pulls it. */
    private void requireStoredAsSent(String key, byte[] sent) throws IOException {
        Optional<byte[]> stored = objects.get(key, RemoteManifestCodec.MAX_MANIFEST_BYTES);
        String difference = stored.isEmpty() ? "was gone right after it was written" : RoundTripProbe.difference(sent, stored.get());
        if (difference != null) {
            objects.delete(key);
            throw new StoreDamagesDataException("the store did not keep the manifest as sent: " + key + " of " + sent.length + " bytes "
                    + difference + "; deleted it, the snapshot is not in the store");
        }
    }

    /** The CPU the daemon recorded at snapshot time if it did, else this host's (which then took the snapshot). */
    private CpuProfile cpuOf(Manifest manifest) throws RemoteFormatException {
        String recorded = manifest.annotations().get(CpuProfile.ANNOTATION);
        if (recorded == null) {
            return hostCpu.get();
        }
        try {
            return RemoteManifestCodec.JSON.readValue(recorded, CpuProfile.class);
        } catch (IOException | IllegalArgumentException e) {
            throw new RemoteFormatException("snapshot " + manifest.snapshotId() + ": annotation " + CpuProfile.ANNOTATION
                    + " is not a CPU profile: " + e.getMessage(), e);
        }
    }

    private record Piece(long offset, long length, CompletableFuture<ChunkHash> hash) {
        ChunkRef toRef() {
            return hash == null ? ChunkRef.zeros(offset, length) : ChunkRef.data(offset, length, hash.join());
        }
    }

    private record FilePieces(String path, Path file, long size, String chunking, List<Piece> pieces) {
        /** Adjacent holes merge into one piece, which keeps manifests of mostly empty guests small. */
        RemoteFile toRemote() {
            List<ChunkRef> refs = new ArrayList<>();
            for (Piece piece : pieces) {
                ChunkRef ref = piece.toRef();
                ChunkRef last = refs.isEmpty() ? null : refs.getLast();
                if (ref.isHole() && last != null && last.isHole()) {
                    refs.set(refs.size() - 1, ChunkRef.zeros(last.offset(), last.length() + ref.length()));
                } else {
                    refs.add(ref);
                }
            }
            return new RemoteFile(path, size, chunking, refs);
        }
    }

    /** Where a chunk's bytes can be read again, and when the store was last seen to hold it (and with what size). */
    private record Source(Path file, long offset, int length) {
    }

    private record Confirmation(Instant at, long storedSize) {
    }

    /** The chunks of one push: which were claimed, where to re-read them, when they were confirmed. */
    private final class Upload {
        private final TransferProgress<PushStatus> progress;
        private final Map<ChunkHash, Source> sources = new ConcurrentHashMap<>();
        private final Map<ChunkHash, Confirmation> confirmed = new ConcurrentHashMap<>();

        Upload(TransferProgress<PushStatus> progress) {
            this.progress = progress;
        }

        ChunkHash store(Path file, PlainChunk chunk) throws IOException {
            ChunkHash hash = ChunkHash.of(chunk.data(), 0, chunk.length());
            if (sources.putIfAbsent(hash, new Source(file, chunk.offset(), chunk.length())) != null) {
                progress.skipped(chunk.length()); // the same bytes again within this snapshot
                return hash;
            }
            Instant now = clock.instant();
            Optional<ObjectInfo> stored = objects.head(keys.chunk(hash));
            byte[] frame = null;
            if (stored.isPresent() && verify) {
                frame = ChunkCodec.compress(chunk.data(), chunk.length());
                if (stored.get().size() != frame.length && !storedFrameVerifies(hash, chunk.length())) {
                    stored = Optional.empty(); // damaged (truncated by a store that died mid-write, or kept with framing): upload anew
                }
            } else if (stored.isPresent() && stored.get().size() > ChunkCodec.maxFrameBytes(chunk.length())) {
                stored = Optional.empty(); // larger than any frame of its bytes: damaged, upload anew
            }
            if (stored.isPresent()) {
                refreshIfOld(hash, stored.get(), now);
                confirmed.put(hash, new Confirmation(now, stored.get().size()));
                progress.skipped(chunk.length());
            } else {
                if (frame == null) {
                    frame = ChunkCodec.compress(chunk.data(), chunk.length());
                }
                objects.put(keys.chunk(hash), frame);
                if (verify) {
                    requireStoredSize(hash, frame.length);
                }
                confirmed.put(hash, new Confirmation(now, frame.length));
                progress.moved(chunk.length(), frame.length);
            }
            return hash;
        }

        /**
         * A stored chunk whose size is not that of this host's frame of its bytes: another zstd may have written it (it
         * then decompresses to its hash and is kept), or it is damaged: read it and see.
         */
        private boolean storedFrameVerifies(ChunkHash hash, int length) throws IOException {
            try {
                Optional<byte[]> frame = objects.get(keys.chunk(hash), ChunkCodec.maxFrameBytes(length));
                if (frame.isEmpty()) {
                    return false;
                }
                ChunkCodec.decompressVerified(hash, frame.get(), length);
                return true;
            } catch (ChunkCorruptException | RemoteFormatException damaged) {
                return false;
            }
        }

        /** One HEAD: the store keeps exactly the bytes sent (a streamed body stored with its framing is longer). */
        private void requireStoredSize(ChunkHash hash, long sent) throws IOException {
            Optional<ObjectInfo> stored = objects.head(keys.chunk(hash));
            if (stored.isEmpty() || stored.get().size() != sent) {
                objects.delete(keys.chunk(hash));
                throw new StoreDamagesDataException("the store did not keep chunk " + hash + " as sent: " + sent + " bytes were sent, "
                        + (stored.isEmpty() ? "none were there right after" : stored.get().size() + " are stored")
                        + "; deleted it, push again once the store is fixed");
            }
        }

        /** Reads back a random sample of the referenced chunks and checks them like a pull; a damaged one is deleted. */
        void readBackSample() throws IOException {
            List<ChunkHash> all = new ArrayList<>(sources.keySet());
            Collections.shuffle(all);
            for (ChunkHash hash : all.subList(0, Math.min(SAMPLED_CHUNKS, all.size()))) {
                int length = sources.get(hash).length();
                byte[] frame = objects.get(keys.chunk(hash), ChunkCodec.maxFrameBytes(length)).orElse(null);
                try {
                    if (frame == null) {
                        throw new ChunkCorruptException(hash, "it was gone from the store right after being confirmed");
                    }
                    ChunkCodec.decompressVerified(hash, frame, length);
                } catch (ChunkCorruptException e) {
                    objects.delete(keys.chunk(hash));
                    throw new StoreDamagesDataException("the store did not keep what was pushed: " + e.getMessage()
                            + "; deleted it, push again once the store is fixed");
                }
            }
        }

        /** Confirms again, in parallel, every chunk last confirmed more than half the gc grace ago; repeats until none is. */
        void reconfirmStale() throws IOException {
            for (int round = 0; round < 10; round++) {
                Instant limit = clock.instant().minus(confirmWindow);
                List<ChunkHash> stale = confirmed.entrySet().stream().filter(e -> e.getValue().at().isBefore(limit)).map(Map.Entry::getKey).toList();
                if (stale.isEmpty()) {
                    return;
                }
                try (BoundedTasks tasks = new BoundedTasks(pool, parallelism)) {
                    for (ChunkHash hash : stale) {
                        tasks.submit(() -> reconfirm(hash));
                    }
                    tasks.awaitAll();
                }
            }
            throw new StoreException("push could not confirm its chunks within half the gc grace (" + confirmWindow
                    + ") ten times in a row; the store is too slow for this grace");
        }

        private void reconfirm(ChunkHash hash) throws IOException {
            Instant now = clock.instant();
            Optional<ObjectInfo> stored = objects.head(keys.chunk(hash));
            if (stored.isPresent()) {
                refreshIfOld(hash, stored.get(), now);
                confirmed.put(hash, new Confirmation(now, stored.get().size()));
                return;
            }
            Source source = sources.get(hash);
            byte[] plain = read(source);
            if (!ChunkHash.of(plain, 0, plain.length).equals(hash)) {
                throw new StoreException("chunk " + hash + " vanished from the store and " + source.file()
                        + " changed since it was read; push again");
            }
            byte[] frame = ChunkCodec.compress(plain, plain.length);
            objects.put(keys.chunk(hash), frame);
            confirmed.put(hash, new Confirmation(now, frame.length));
            progress.movedAgain(frame.length);
        }

        private void refreshIfOld(ChunkHash hash, ObjectInfo stored, Instant now) throws StoreException {
            if (stored.lastModified() != null && stored.lastModified().isBefore(now.minus(confirmWindow))) {
                objects.touch(keys.chunk(hash));
            }
        }

        long storedBytes() {
            return confirmed.values().stream().mapToLong(Confirmation::storedSize).sum();
        }

        private static byte[] read(Source source) throws IOException {
            byte[] data = new byte[source.length()];
            ByteBuffer buffer = ByteBuffer.wrap(data);
            try (FileChannel channel = FileChannel.open(source.file(), StandardOpenOption.READ)) {
                while (buffer.hasRemaining()) {
                    if (channel.read(buffer, source.offset() + buffer.position()) < 0) {
                        throw new EOFException(source.file() + " is shorter than when it was pushed");
                    }
                }
            }
            return data;
        }
    }
}
