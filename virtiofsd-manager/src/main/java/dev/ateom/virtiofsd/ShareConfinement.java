package dev.ateom.virtiofsd;

import java.nio.file.Path;
import java.util.List;

/**
 * Where a caller confined a share set's processes beyond virtiofsd's own sandboxing (the VMM jail's cgroup for the
 * shares): named in what the daemon records, and ended by the set once its processes are gone
 * ({@link ShareSet#confine}).
 */
public interface ShareConfinement {
    /** Its name, as recorded (a cgroup's name under the daemon's parent). */
    String name();

    /** Where it lives on the host (a cgroup's directories). */
    List<Path> paths();

    /** Ends it: called once, after the set's processes were stopped or killed. Never throws. */
    void end();
}
