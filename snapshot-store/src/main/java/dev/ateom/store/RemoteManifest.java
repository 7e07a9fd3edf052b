package dev.ateom.store;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.snapshot.Manifest;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code snapshots/<id>/manifest.json} in the store: the local manifest ({@code local}, exactly as the snapshot
 * module writes it), how each file is cut into chunks, and what a restore host must match. Written last by a
 * push, so a snapshot exists remotely iff this object does.
 *
 * @param storedBytes compressed bytes of the distinct chunks this snapshot references (what it would occupy alone)
 */
@JsonPropertyOrder({"formatVersion", "snapshotId", "pushedAt", "host", "storedBytes", "files", "local"})
public record RemoteManifest(int formatVersion, String snapshotId, Instant pushedAt, HostRequirements host, long storedBytes,
                             List<RemoteFile> files, JsonNode local) {
    public static final int FORMAT_VERSION = 1;

    public RemoteManifest {
        Objects.requireNonNull(snapshotId, "snapshotId");
        Objects.requireNonNull(pushedAt, "pushedAt");
        Objects.requireNonNull(host, "host");
        files = List.copyOf(Objects.requireNonNull(files, "files"));
        Objects.requireNonNull(local, "local");
    }

    /** The snapshot module's manifest this one carries (who the snapshot is of, its files), checked as a pull checks it. */
    public Manifest localManifest() throws RemoteFormatException {
        return RemoteManifestCodec.local(this);
    }

    public Optional<RemoteFile> file(String path) {
        return files.stream().filter(f -> f.path().equals(path)).findFirst();
    }
}
