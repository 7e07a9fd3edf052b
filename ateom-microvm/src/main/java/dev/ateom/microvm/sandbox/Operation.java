package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;

/**
 * What can be done to a sandbox. Its {@link #wireName()} ({@code create}, {@code suspend}, ...) is how it is
 * written everywhere outside Java: the record's {@code lastOperation}, metric labels, crash and fail points
 * ({@code suspend.archive}) and problem types ({@code suspend-failed}).
 */
public enum Operation {
    CREATE, CLONE, SUSPEND, RESUME, DELETE, CHECKPOINT, FORK;

    @JsonValue
    public String wireName() { return name().toLowerCase(Locale.ROOT); }

    @JsonCreator
    public static Operation fromWireName(String name) {
        for (Operation operation : values()) {
            if (operation.wireName().equals(name)) return operation;
        }
        throw new IllegalArgumentException("unknown operation '" + name + "'");
    }

    /** Whether a sandbox in {@code state} may undergo this operation; create and clone make a new sandbox instead. */
    public boolean allowedIn(SandboxState state) {
        return switch (this) {
            case CREATE, CLONE -> false;
            case SUSPEND, CHECKPOINT -> state == SandboxState.RUNNING;
            // a running source is checkpointed, a suspended one gives its latest snapshot
            case FORK -> state == SandboxState.RUNNING || state == SandboxState.SUSPENDED;
            case RESUME -> state == SandboxState.SUSPENDED;
            // a delete that failed half way is finished by the next one (the lock refuses one running concurrently)
            case DELETE -> true;
        };
    }
}
