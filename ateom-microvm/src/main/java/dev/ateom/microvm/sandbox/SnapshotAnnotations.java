package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.snapshot.Manifest;

import java.util.Map;

/**
 * How a snapshot's name, labels and parent are kept: manifest annotations, written with the manifest in the atomic
 * commit and travelling with it to the snapshot store (snapshot/README.md). A manifest without them (taken before
 * they existed) reads as unnamed, unlabelled and without a parent.
 */
final class SnapshotAnnotations {
    static final String NAME = "ateom.dev/snapshot-name";
    /** The labels as one JSON object of strings. */
    static final String LABELS = "ateom.dev/snapshot-labels";
    static final String PARENT = "ateom.dev/parent-snapshot";
    private static final TypeReference<Map<String, String>> LABEL_MAP = new TypeReference<>() {};

    private SnapshotAnnotations() {}

    /** Adds the annotations of {@code tags} and {@code parentSnapshotId} (null: none) to {@code annotations}. */
    static void put(Map<String, String> annotations, SnapshotTags tags, String parentSnapshotId) {
        if (tags.name() != null) annotations.put(NAME, tags.name());
        if (!tags.labels().isEmpty()) {
            try {
                annotations.put(LABELS, ApiJson.mapper().writeValueAsString(tags.labels()));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("labels of strings always serialize", e);
            }
        }
        if (parentSnapshotId != null) annotations.put(PARENT, parentSnapshotId);
    }

    static SnapshotTags tags(Manifest manifest) {
        Map<String, String> annotations = manifest.annotations();
        String labels = annotations.get(LABELS);
        try {
            return new SnapshotTags(annotations.get(NAME), labels == null ? Map.of() : ApiJson.mapper().readValue(labels, LABEL_MAP));
        } catch (JsonProcessingException e) {
            // an edited manifest: its labels are shown as absent rather than breaking the listing
            return new SnapshotTags(annotations.get(NAME), Map.of());
        }
    }

    static String parent(Manifest manifest) { return manifest.annotations().get(PARENT); }
}
