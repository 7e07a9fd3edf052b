package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.snapshot.Manifest;
import dev.ateom.snapshot.Snapshot;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sandbox spec each snapshot carries (its manifest's {@value #ANNOTATION} annotation), parsed once. Parsing it
 * was most of what opening a snapshot for a resume or clone cost (0.6-1.7 ms p50 on a 2-core host).
 *
 * <p>A spec is kept with the manifest object it came from. The snapshot store hands out the same manifest object for
 * as long as the file's bytes stay the same ({@code SnapshotStore}), so the same object means the same annotation;
 * a manifest edited on disk is a new object, and its spec is parsed again (TamperedSnapshotSpecTest). The suspend
 * that wrote a snapshot leaves the spec it wrote, so the resume right after it parses nothing either.
 */
public final class SnapshotSpecs {
    /** The manifest annotation holding the source sandbox's spec: a clone learns the guest, sizing and volumes there. */
    static final String ANNOTATION = "ateom.dev/sandbox-spec";

    private final Map<String, Parsed> specs = new ConcurrentHashMap<>();

    private record Parsed(Manifest manifest, SandboxSpec spec) {}

    /** The annotation a snapshot of a sandbox with {@code spec} carries. */
    static String annotationOf(SandboxSpec spec) throws JsonProcessingException {
        return ApiJson.mapper().writeValueAsString(spec);
    }

    /** {@code snapshot} was just committed with {@code spec} as its annotation ({@link #annotationOf}). */
    void committed(Snapshot snapshot, SandboxSpec spec) {
        specs.put(snapshot.id(), new Parsed(snapshot.manifest(), spec));
    }

    /** The spec {@code snapshot} carries; refused, naming the snapshot, when it has none or cannot be read. */
    SandboxSpec of(Snapshot snapshot) {
        Parsed parsed = specs.get(snapshot.id());
        if (parsed != null && parsed.manifest() == snapshot.manifest()) return parsed.spec();
        String annotation = snapshot.manifest().annotations().get(ANNOTATION);
        if (annotation == null) {
            throw new SnapshotUnusableException(snapshot.id(), "has no sandbox spec (annotation " + ANNOTATION + "); it was not made by ateom");
        }
        SandboxSpec spec;
        try {
            spec = ApiJson.mapper().readValue(annotation, SandboxSpec.class);
        } catch (JsonProcessingException e) {
            throw new SnapshotUnusableException(snapshot.id(), "holds an unreadable sandbox spec: " + e.getOriginalMessage());
        }
        specs.put(snapshot.id(), new Parsed(snapshot.manifest(), spec));
        return spec;
    }

    /** The snapshot was deleted from this host. */
    void forget(String snapshotId) { specs.remove(snapshotId); }
}
