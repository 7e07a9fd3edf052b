package dev.ateom.microvm.systeminfo.volume;

import dev.ateom.microvm.systeminfo.spec.CleanRelativePath;
import dev.ateom.microvm.systeminfo.spec.FileMode;
import java.util.Objects;

/** One file of a generation: clean relative path, permission bits, content. */
public record VolumeFile(String path, FileMode mode, FileContent content) {
    public VolumeFile {
        CleanRelativePath.require(path, "volume file path");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(content, "content");
    }

    /** The first path segment: the name a relative symlink exposes at the volume's top level. */
    public String topLevelName() {
        int slash = path.indexOf('/');
        return slash < 0 ? path : path.substring(0, slash);
    }
}
