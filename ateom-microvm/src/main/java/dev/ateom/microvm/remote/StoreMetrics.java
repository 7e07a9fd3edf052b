package dev.ateom.microvm.remote;

import dev.ateom.store.ChunkCache;
import dev.ateom.store.PullStatus;
import dev.ateom.store.PushStatus;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.concurrent.atomic.AtomicLong;

/** Snapshot store metrics: bytes pushed and pulled, dedup ratio, push/pull durations, chunk cache size and hit ratio. */
final class StoreMetrics {
    private static final double[] SECONDS = {0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600};
    private final Counter bytes;
    private final Histogram duration;
    private final AtomicLong pushedPlain = new AtomicLong();
    private final AtomicLong deduplicated = new AtomicLong();

    StoreMetrics(PrometheusRegistry registry, ChunkCache cache) {
        bytes = Counter.builder().name("ateom_store_bytes_total")
                .help("Bytes moved to and from the snapshot store: uploaded and downloaded on the wire (compressed), "
                        + "deduplicated (plain bytes the store already had), from_cache (plain bytes a pull took from the chunk cache)")
                .labelNames("direction").register(registry);
        duration = Histogram.builder().name("ateom_store_transfer_duration_seconds")
                .help("Duration of snapshot pushes and pulls").labelNames("transfer", "outcome")
                .classicUpperBounds(SECONDS).register(registry);
        GaugeWithCallback.builder().name("ateom_store_dedup_ratio")
                .help("Plain bytes the store already had over the apparent size (holes included) of the snapshots pushed since start (0-1)")
                .callback(cb -> {
                    long total = pushedPlain.get();
                    cb.call(total == 0 ? 0 : (double) deduplicated.get() / total);
                }).register(registry);
        GaugeWithCallback.builder().name("ateom_store_chunk_cache_bytes")
                .help("Bytes in the local chunk cache, and its bound").labelNames("kind")
                .callback(cb -> {
                    ChunkCache.Stats stats = cache.stats();
                    cb.call(stats.bytes(), "used");
                    cb.call(stats.maxBytes(), "limit");
                }).register(registry);
        GaugeWithCallback.builder().name("ateom_store_chunk_cache_hit_ratio")
                .help("Chunk cache hits over lookups since start (0-1)")
                .callback(cb -> {
                    ChunkCache.Stats stats = cache.stats();
                    long lookups = stats.hits() + stats.misses();
                    cb.call(lookups == 0 ? 0 : (double) stats.hits() / lookups);
                }).register(registry);
    }

    void pushed(PushStatus status, double seconds) {
        bytes.labelValues("uploaded").inc(status.bytesUploaded());
        bytes.labelValues("deduplicated").inc(status.bytesDeduplicated());
        pushedPlain.addAndGet(status.doneBytes());
        deduplicated.addAndGet(status.bytesDeduplicated());
        duration.labelValues("push", "success").observe(seconds);
    }

    void pulled(PullStatus status, double seconds) {
        bytes.labelValues("downloaded").inc(status.bytesDownloaded());
        bytes.labelValues("from_cache").inc(status.bytesFromCache());
        duration.labelValues("pull", "success").observe(seconds);
    }

    void failed(String transfer, double seconds) {
        duration.labelValues(transfer, "failure").observe(seconds);
    }
}
