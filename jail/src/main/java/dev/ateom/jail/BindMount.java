package dev.ateom.jail;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One host path made visible inside a jail's root.
 *
 * @param source   the host path (file or directory)
 * @param target   where it appears inside the jail, absolute
 * @param readOnly whether the jail sees it read-only
 */
public record BindMount(Path source, Path target, boolean readOnly) {
    public BindMount {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(target, "target");
        if (!source.isAbsolute() || !target.isAbsolute()) {
            throw new IllegalArgumentException("bind mount paths must be absolute: " + source + " -> " + target);
        }
    }

    /** The host path at the same place inside the jail, read-only. */
    public static BindMount readOnly(Path path) {
        return new BindMount(path, path, true);
    }

    /** The host path at the same place inside the jail, writable. */
    public static BindMount writable(Path path) {
        return new BindMount(path, path, false);
    }
}
