package dev.ateom.microvm.events;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.SandboxState;

import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/**
 * One thing that happened to a sandbox, as the events stream sends it. {@code id} orders all events of this daemon
 * run (from 1; a restarted daemon starts again); the other fields are set where they apply to the {@code type}.
 * Made by the factories below with id 0 and numbered by {@link EventLog#publish}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SandboxEvent(long id, Instant time, Type type, String sandboxId, SandboxState oldState, SandboxState newState,
                           Operation operation, Boolean succeeded, Map<String, Long> timingsMs, String snapshotId, String error,
                           String detail, Progress progress) {

    public enum Type {
        /** The sandbox's state changed ({@code oldState} absent: the sandbox is new). */
        STATE,
        /** An operation finished, {@code succeeded} or not (with {@code error}). */
        OPERATION,
        /** The sandbox is gone (a delete finished). */
        DELETED,
        /** The idle timeout acted on the sandbox ({@code operation}: suspend or delete). */
        IDLE,
        /** A system-info volume could not be synced ({@code detail} names it). */
        SYNC_ERROR,
        /** An operation in progress moved on ({@code progress}). */
        PROGRESS;

        @JsonValue
        public String wireName() { return name().toLowerCase(Locale.ROOT).replace('_', '-'); }
    }

    /** How far an operation got: its current step and, where known, bytes done of the total. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Progress(String operationId, String step, Long bytesDone, Long bytesTotal) {}

    public static SandboxEvent stateChanged(String sandboxId, SandboxState oldState, SandboxState newState, Operation operation) {
        return new SandboxEvent(0, null, Type.STATE, sandboxId, oldState, newState, operation, null, null, null, null, null, null);
    }

    public static SandboxEvent operationFinished(String sandboxId, SandboxState state, Operation operation, Map<String, Long> timingsMs,
                                                 String snapshotId, String error) {
        return new SandboxEvent(0, null, Type.OPERATION, sandboxId, null, state, operation, error == null, timingsMs, snapshotId, error,
                null, null);
    }

    public static SandboxEvent deleted(String sandboxId) {
        return new SandboxEvent(0, null, Type.DELETED, sandboxId, SandboxState.DELETING, null, Operation.DELETE, null, null, null, null,
                null, null);
    }

    public static SandboxEvent idle(String sandboxId, Operation action, String detail) {
        return new SandboxEvent(0, null, Type.IDLE, sandboxId, null, null, action, null, null, null, null, detail, null);
    }

    public static SandboxEvent syncError(String sandboxId, String detail) {
        return new SandboxEvent(0, null, Type.SYNC_ERROR, sandboxId, null, null, null, null, null, null, null, detail, null);
    }

    public static SandboxEvent progress(String sandboxId, Operation operation, Progress progress) {
        return new SandboxEvent(0, null, Type.PROGRESS, sandboxId, null, null, operation, null, null, null, null, null, progress);
    }

    SandboxEvent numbered(long newId, Instant at) {
        return new SandboxEvent(newId, at, type, sandboxId, oldState, newState, operation, succeeded, timingsMs, snapshotId, error, detail,
                progress);
    }
}
