package dev.ateom.store;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Optional;

/**
 * One piece of a file in a remote manifest: {@code [offset, offset + length)} is either the chunk named by
 * {@code sha256} or, with {@code hole: true}, zeros that are not stored (memory only).
 */
@JsonPropertyOrder({"offset", "length", "sha256", "hole"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ChunkRef(long offset, long length, String sha256, Boolean hole) {
    public static ChunkRef data(long offset, long length, ChunkHash hash) {
        return new ChunkRef(offset, length, hash.hex(), null);
    }

    public static ChunkRef zeros(long offset, long length) {
        return new ChunkRef(offset, length, null, Boolean.TRUE);
    }

    public boolean isHole() {
        return Boolean.TRUE.equals(hole);
    }

    public Optional<ChunkHash> chunkHash() {
        return sha256 == null ? Optional.empty() : Optional.of(new ChunkHash(sha256));
    }

    public long end() {
        return offset + length;
    }
}
