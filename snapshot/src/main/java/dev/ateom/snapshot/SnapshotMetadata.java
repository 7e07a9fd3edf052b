package dev.ateom.snapshot;

import java.util.Map;
import java.util.Objects;

/**
 * What the daemon knows about a snapshot that the files do not tell: the source sandbox and its
 * identity, the CHV version that wrote chv/, the kind of each virtio-fs share by tag, and free-form
 * annotations stored in the manifest (see {@link Manifest#annotations()}).
 */
public record SnapshotMetadata(Manifest.SourceSandbox source, String chvVersion, Map<String, String> sharesByTag,
                               Map<String, String> annotations) {
    public SnapshotMetadata {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(chvVersion, "chvVersion");
        sharesByTag = Map.copyOf(Objects.requireNonNull(sharesByTag, "sharesByTag"));
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
    }

    public SnapshotMetadata(Manifest.SourceSandbox source, String chvVersion, Map<String, String> sharesByTag) {
        this(source, chvVersion, sharesByTag, Map.of());
    }
}
