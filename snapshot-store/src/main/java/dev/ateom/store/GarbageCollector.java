package dev.ateom.store;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;

/**
 * Deletes chunks that no manifest references. Chunks are listed before manifests, and a chunk is deleted only if
 * it is older than the grace both in that listing and when looked at again just before its delete, so a chunk a
 * push uploads or reuses (the push refreshes old ones) is never taken from under it. An unreadable manifest
 * stops the run before anything is deleted: what it references is unknown.
 */
final class GarbageCollector {
    private final S3Objects objects;
    private final StoreKeys keys;
    private final ExecutorService pool;
    private final int parallelism;
    private final Clock clock;

    GarbageCollector(S3Objects objects, StoreKeys keys, ExecutorService pool, int parallelism, Clock clock) {
        this.objects = objects;
        this.keys = keys;
        this.pool = pool;
        this.parallelism = parallelism;
        this.clock = clock;
    }

    GcReport collect(Duration grace) throws IOException {
        List<ObjectInfo> chunks = objects.list(keys.chunksPrefix());
        Set<ChunkHash> referenced = new HashSet<>();
        int manifests = 0;
        for (ObjectInfo object : objects.list(keys.snapshotsPrefix())) {
            String snapshotId = keys.snapshotIdOf(object.key());
            if (snapshotId == null) {
                continue;
            }
            Optional<byte[]> bytes = objects.get(object.key(), RemoteManifestCodec.MAX_MANIFEST_BYTES);
            if (bytes.isEmpty()) {
                continue; // deleted since the listing: its chunks may go
            }
            RemoteManifest manifest = RemoteManifestCodec.read(snapshotId, bytes.get());
            manifests++;
            for (RemoteFile file : manifest.files()) {
                file.chunks().forEach(ref -> ref.chunkHash().ifPresent(referenced::add));
            }
        }
        Instant now = clock.instant();
        Instant limit = now.minus(grace);
        Set<ChunkHash> present = new HashSet<>();
        List<ChunkHash> candidates = new ArrayList<>();
        int keptYoung = 0;
        long bytesKeptYoung = 0;
        for (ObjectInfo chunk : chunks) {
            ChunkHash hash = keys.chunkOf(chunk.key());
            if (hash == null) {
                continue;
            }
            present.add(hash);
            if (referenced.contains(hash)) {
                continue;
            }
            if (chunk.lastModified().isBefore(limit)) {
                candidates.add(hash);
            } else {
                keptYoung++;
                bytesKeptYoung += chunk.size();
            }
        }
        Map<ChunkHash, Long> removed = new ConcurrentHashMap<>();
        try (BoundedTasks tasks = new BoundedTasks(pool, parallelism)) {
            for (ChunkHash hash : candidates) {
                tasks.submit(() -> {
                    Optional<ObjectInfo> current = objects.head(keys.chunk(hash));
                    if (current.isPresent() && current.get().lastModified().isBefore(limit)) {
                        objects.delete(keys.chunk(hash));
                        removed.put(hash, current.get().size());
                    }
                });
            }
            tasks.awaitAll();
        }
        List<GcReport.RemovedChunk> list = removed.entrySet().stream()
                .map(e -> new GcReport.RemovedChunk(e.getKey(), e.getValue())).sorted((a, b) -> a.hash().hex().compareTo(b.hash().hex())).toList();
        List<ChunkHash> missing = new ArrayList<>();
        for (ChunkHash hash : referenced) {
            // a push may have stored it after the listing: only a chunk still absent now is missing
            if (!present.contains(hash) && objects.head(keys.chunk(hash)).isEmpty()) {
                missing.add(hash);
            }
        }
        missing.sort((a, b) -> a.hex().compareTo(b.hex()));
        int skippedBecauseRefreshed = candidates.size() - list.size();
        return new GcReport(manifests, present.size(), referenced.size(), list, list.stream().mapToLong(GcReport.RemovedChunk::bytes).sum(),
                keptYoung + skippedBecauseRefreshed, bytesKeptYoung, missing);
    }
}
