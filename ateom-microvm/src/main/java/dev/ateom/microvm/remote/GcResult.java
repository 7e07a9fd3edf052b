package dev.ateom.microvm.remote;

import dev.ateom.store.ChunkHash;
import dev.ateom.store.GcReport;

import java.util.List;

/**
 * What {@code POST /v1/store/gc} did: chunks removed (referenced by no manifest, older than the grace), unreferenced
 * ones kept for being young (an upload may be in flight), and referenced chunks the store lacks (damaged snapshots).
 */
public record GcResult(int manifests, int chunks, int referenced, List<String> removed, long bytesRemoved, int keptYoung,
                       long bytesKeptYoung, List<String> missing) {
    static GcResult of(GcReport report) {
        return new GcResult(report.manifests(), report.chunks(), report.referenced(),
                report.removed().stream().map(removed -> removed.hash().hex()).toList(), report.bytesRemoved(), report.keptYoung(),
                report.bytesKeptYoung(), report.missing().stream().map(ChunkHash::hex).toList());
    }
}
