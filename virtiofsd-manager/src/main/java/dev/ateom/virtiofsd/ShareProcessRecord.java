package dev.ateom.virtiofsd;

import java.util.Objects;

/**
 * What the daemon persists about a running share so that, after its own restart, it can adopt the process
 * ({@link VirtiofsdLauncher#adopt}) or kill it ({@link VirtiofsdLauncher#killLeftovers}).
 *
 * @param spec       the share as it was started (socket path, log file, shared dir, options)
 * @param pid        the virtiofsd pid (the one in {@code <socket>.pid})
 * @param startTicks /proc start time of that pid; 0 when unknown (then only the command line is checked)
 */
public record ShareProcessRecord(ShareSpec spec, long pid, long startTicks) {
    public ShareProcessRecord {
        Objects.requireNonNull(spec, "spec");
        if (pid <= 0) throw new IllegalArgumentException("pid must be positive, was " + pid);
    }
}
