package dev.ateom.snapshot;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The new host paths a restored VM uses: one vhost-user socket per virtio-fs tag, the hybrid vsock
 * socket, and where serial and console go (the file or socket, whichever their mode uses).
 */
public record RestoreSockets(Map<String, Path> fsSocketsByTag,
                             Optional<Path> vsockSocket,
                             Optional<Path> serialPath,
                             Optional<Path> consolePath) {
    public RestoreSockets {
        fsSocketsByTag = Map.copyOf(Objects.requireNonNull(fsSocketsByTag, "fsSocketsByTag"));
        Objects.requireNonNull(vsockSocket, "vsockSocket");
        Objects.requireNonNull(serialPath, "serialPath");
        Objects.requireNonNull(consolePath, "consolePath");
    }
}
