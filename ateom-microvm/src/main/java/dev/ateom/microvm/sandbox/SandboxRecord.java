package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ateom.microvm.systeminfo.spec.ActorIdentity;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Everything the daemon knows about one sandbox, written to {@code sandbox.json} atomically on every
 * transition. {@code epochs} counts boots and restores (each gets fresh socket paths); {@code lastTimingsMs} holds the step timings of the last create/suspend/resume/clone.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SandboxRecord(
        String id,
        SandboxSpec spec,
        ActorIdentity identity,
        SandboxState state,
        String failureReason,
        Instant createdAt,
        Instant updatedAt,
        String sourceSnapshotId,
        String latestSnapshotId,
        List<String> snapshotIds,
        VmRuntime runtime,
        int epochs,
        String lastOperation,
        Map<String, Long> lastTimingsMs) {

    public SandboxRecord {
        snapshotIds = snapshotIds == null ? List.of() : List.copyOf(snapshotIds);
    }

    public SandboxRecord withState(SandboxState newState) {
        return new SandboxRecord(id, spec, identity, newState, newState == SandboxState.FAILED ? failureReason : null,
                createdAt, Instant.now(), sourceSnapshotId, latestSnapshotId, snapshotIds, runtime, epochs, lastOperation, lastTimingsMs);
    }

    public SandboxRecord failed(String reason) {
        return new SandboxRecord(id, spec, identity, SandboxState.FAILED, reason, createdAt, Instant.now(), sourceSnapshotId,
                latestSnapshotId, snapshotIds, runtime, epochs, lastOperation, lastTimingsMs);
    }

    public SandboxRecord withRuntime(VmRuntime newRuntime) {
        return new SandboxRecord(id, spec, identity, state, failureReason, createdAt, Instant.now(), sourceSnapshotId,
                latestSnapshotId, snapshotIds, newRuntime, newRuntime != null ? Math.max(epochs, newRuntime.epoch()) : epochs, lastOperation, lastTimingsMs);
    }

    public SandboxRecord withOperation(String operation, Map<String, Long> timingsMs) {
        return new SandboxRecord(id, spec, identity, state, failureReason, createdAt, Instant.now(), sourceSnapshotId,
                latestSnapshotId, snapshotIds, runtime, epochs, operation, timingsMs == null ? null : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(timingsMs)));
    }

    public SandboxRecord withSnapshot(String snapshotId) {
        List<String> ids = new java.util.ArrayList<>(snapshotIds);
        ids.add(snapshotId);
        return new SandboxRecord(id, spec, identity, state, failureReason, createdAt, Instant.now(), sourceSnapshotId,
                snapshotId, ids, runtime, epochs, lastOperation, lastTimingsMs);
    }

    public SandboxRecord withoutSnapshot(String snapshotId) {
        List<String> ids = new java.util.ArrayList<>(snapshotIds);
        ids.remove(snapshotId);
        String latest = snapshotId.equals(latestSnapshotId) ? (ids.isEmpty() ? null : ids.getLast()) : latestSnapshotId;
        return new SandboxRecord(id, spec, identity, state, failureReason, createdAt, Instant.now(), sourceSnapshotId,
                latest, ids, runtime, epochs, lastOperation, lastTimingsMs);
    }
}
