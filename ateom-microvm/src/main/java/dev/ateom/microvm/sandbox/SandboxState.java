package dev.ateom.microvm.sandbox;

import java.util.EnumSet;
import java.util.Set;

/** The lifecycle of a sandbox. Operations check {@link Operation#allowedIn} and answer 409 with the current state otherwise. */
public enum SandboxState {
    CREATING, RUNNING, SUSPENDING, SUSPENDED, RESUMING, DELETING, FAILED;

    /** States in which the daemon is in the middle of something: a crash there needs recovery. */
    public static final Set<SandboxState> TRANSITIONAL = EnumSet.of(CREATING, SUSPENDING, RESUMING, DELETING);
}
