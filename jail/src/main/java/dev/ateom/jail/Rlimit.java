package dev.ateom.jail;

import java.util.Locale;

/** The resource limits the launcher sets (soft = hard, so the jailed program cannot raise them back). */
public enum Rlimit {
    NOFILE, NPROC, FSIZE, CORE, MEMLOCK;

    /** The launcher's name for it ({@code --rlimit nofile 1024}). */
    public String launcherName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
