package dev.ateom.snapshot;

import java.util.Map;
import java.util.Objects;

/**
 * What the daemon knows about a snapshot that the files do not tell: the source sandbox and its
 * identity, the CHV version that wrote chv/, and the kind of each virtio-fs share by tag.
 */
public record SnapshotMetadata(Manifest.SourceSandbox source, String chvVersion, Map<String, String> sharesByTag) {
    public SnapshotMetadata {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(chvVersion, "chvVersion");
        sharesByTag = Map.copyOf(Objects.requireNonNull(sharesByTag, "sharesByTag"));
    }
}
