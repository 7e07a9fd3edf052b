package dev.ateom.store;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;

/** A snapshot file in a remote manifest: its path in the snapshot dir, size, how it was cut, and its pieces in order. */
@JsonPropertyOrder({"path", "size", "chunking", "chunks"})
public record RemoteFile(String path, long size, String chunking, List<ChunkRef> chunks) {
    public RemoteFile {
        Objects.requireNonNull(path, "files[].path");
        Objects.requireNonNull(chunking, "files[].chunking");
        chunks = List.copyOf(Objects.requireNonNull(chunks, "files[].chunks"));
    }
}
