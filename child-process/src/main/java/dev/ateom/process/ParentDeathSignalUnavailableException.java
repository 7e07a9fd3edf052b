package dev.ateom.process;

/** A child must die with the daemon, and nothing on this host can make it: it is not started. */
public final class ParentDeathSignalUnavailableException extends RuntimeException {
    public ParentDeathSignalUnavailableException(String program) {
        super("cannot make " + program + " die with the daemon: neither " + ParentDeathWrapper.HELPER_NAME
                + " (built by scripts/build.sh into child-process/target; $ATEOM_DIE_WITH_PARENT names it) nor "
                + ParentDeathWrapper.SETPRIV + " (util-linux) is there; build ateom, install util-linux, "
                + "or let children outlive the daemon (--children-die-with-daemon=false)");
    }
}
