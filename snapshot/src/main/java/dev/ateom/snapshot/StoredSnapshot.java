package dev.ateom.snapshot;

import java.util.Optional;

/**
 * A snapshot directory as the store finds it: a usable snapshot, or the reason it cannot be used
 * (invalid or newer manifest, id mismatch, missing, truncated or non-regular files). An unusable
 * one is still listed and can still be deleted; it is never restored.
 */
public record StoredSnapshot(String id, Optional<Snapshot> snapshot, Optional<String> problem) {
    public static StoredSnapshot usable(Snapshot snapshot) {
        return new StoredSnapshot(snapshot.id(), Optional.of(snapshot), Optional.empty());
    }

    public static StoredSnapshot unusable(String id, String problem) {
        return new StoredSnapshot(id, Optional.empty(), Optional.of(problem));
    }

    public boolean isUsable() {
        return snapshot.isPresent();
    }
}
