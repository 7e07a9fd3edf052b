package dev.ateom.microvm.systeminfo.volume;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** Numeric owner and group applied to everything a volume writer creates; null keeps the daemon's. */
public record Ownership(Integer uid, Integer gid) {
    public static final Ownership DAEMON = new Ownership(null, null);

    /** Applies to {@code path} itself, never to a symlink's target (lchown). */
    void apply(Path path) throws IOException {
        if (uid != null) {
            Files.setAttribute(path, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        }
        if (gid != null) {
            Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
        }
    }
}
