package dev.ateom.process;

import java.nio.file.Path;

/** A child must die with the daemon, and nothing on this host can make it: it is not started. */
public final class ParentDeathSignalUnavailableException extends RuntimeException {
    public ParentDeathSignalUnavailableException(String program, Path setpriv) {
        super("cannot make " + program + " die with the daemon: " + setpriv + " (util-linux) is missing; install util-linux, "
                + "or let children outlive the daemon (--children-die-with-daemon=false)");
    }
}
