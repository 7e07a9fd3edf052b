package dev.ateom.microvm.sandbox;

import java.util.EnumSet;
import java.util.Set;

/** The lifecycle of a sandbox. Operations check {@link #allows} and answer 409 with the current state otherwise. */
public enum SandboxState {
    CREATING, RUNNING, SUSPENDING, SUSPENDED, RESUMING, DELETING, FAILED;

    /** States in which the daemon is in the middle of something: a crash there needs recovery. */
    public static final Set<SandboxState> TRANSITIONAL = EnumSet.of(CREATING, SUSPENDING, RESUMING, DELETING);

    public boolean allows(Operation operation) {
        return switch (operation) {
            case SUSPEND -> this == RUNNING;
            case RESUME -> this == SUSPENDED;
            // a delete that failed half way is finished by the next one (the lock refuses one running concurrently)
            case DELETE -> true;
        };
    }

    public enum Operation { SUSPEND, RESUME, DELETE }
}
