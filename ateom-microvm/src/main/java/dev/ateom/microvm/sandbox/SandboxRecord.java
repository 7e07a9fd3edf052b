package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ateom.microvm.systeminfo.spec.ActorIdentity;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Everything the daemon knows about one sandbox, written to {@code sandbox.json} atomically on every
 * transition. {@code epochs} counts boots and restores (each gets fresh socket paths); {@code lastTimingsMs}
 * holds the step timings of the last create/suspend/resume/clone; {@code deleteSnapshots} is the request of a
 * DELETING sandbox, so a delete finished after a crash or a failure takes the snapshots too if it was asked to.
 * {@code idleDeadline} is when the idle timeout of the spec acts on a RUNNING sandbox (absent when it has none, or is not
 * running: a suspended sandbox does not consume its timeout); an absolute time, so it survives a daemon restart.
 * {@code inStore}: the sandbox may exist elsewhere, because a snapshot of it went to the snapshot store (a push began
 * here) or it was adopted here; once true it stays true, and with leases enforced it runs only with its lease
 * (docs/decisions.md, "A sandbox holds its lease while it runs"). Absent: false.
 * Every change goes through one copy ({@link #copy}), which also stamps {@code updatedAt}.
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
        Operation lastOperation,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean deleteSnapshots,
        Map<String, Long> lastTimingsMs,
        Instant idleDeadline,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean inStore) {

    public SandboxRecord {
        snapshotIds = snapshotIds == null ? List.of() : List.copyOf(snapshotIds);
        lastTimingsMs = lastTimingsMs == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(lastTimingsMs));
    }

    /** A sandbox that {@code operation} (create or clone) is about to bring up. */
    public static SandboxRecord creating(String id, SandboxSpec spec, ActorIdentity identity, String sourceSnapshotId,
                                         Operation operation) {
        Instant now = Instant.now();
        return new SandboxRecord(id, spec, identity, SandboxState.CREATING, null, now, now, sourceSnapshotId, null, List.of(), null,
                0, operation, false, null, null, false);
    }

    /**
     * A sandbox adopted from a snapshot another host took: SUSPENDED at that snapshot, with its id, spec and identity;
     * in the store (its snapshot is there, another host may adopt it too).
     */
    public static SandboxRecord adopted(String id, SandboxSpec spec, ActorIdentity identity, String snapshotId) {
        Instant now = Instant.now();
        return new SandboxRecord(id, spec, identity, SandboxState.SUSPENDED, null, now, now, snapshotId, snapshotId, List.of(snapshotId),
                null, 0, null, false, null, null, true);
    }

    public SandboxRecord withState(SandboxState newState) {
        return copy(c -> {
            c.state = newState;
            if (newState != SandboxState.FAILED) c.failureReason = null;
        });
    }

    public SandboxRecord failed(String reason) {
        return copy(c -> {
            c.state = SandboxState.FAILED;
            c.failureReason = reason;
        });
    }

    public SandboxRecord withRuntime(VmRuntime newRuntime) {
        return copy(c -> {
            c.runtime = newRuntime;
            if (newRuntime != null) c.epochs = Math.max(c.epochs, newRuntime.epoch());
        });
    }

    public SandboxRecord withOperation(Operation operation, Map<String, Long> timingsMs) {
        return copy(c -> {
            c.lastOperation = operation;
            c.lastTimingsMs = timingsMs;
        });
    }

    /** DELETING on request; a delete that finishes an earlier one keeps that one's {@code deleteSnapshots}. */
    public SandboxRecord deleting(boolean withSnapshots) {
        return copy(c -> {
            c.deleteSnapshots = withSnapshots || state == SandboxState.DELETING && deleteSnapshots;
            c.state = SandboxState.DELETING;
            c.failureReason = null;
            c.lastOperation = Operation.DELETE;
        });
    }

    /** The spec as it now stands (the daemon fills in picked host ports; the egress policy can be replaced). */
    public SandboxRecord withSpec(SandboxSpec newSpec) {
        return copy(c -> c.spec = newSpec);
    }

    /**
     * The idle deadline as a use of the sandbox at {@code lastUse} leaves it: {@code lastUse} plus the spec's timeout
     * while RUNNING with an idle spec, none otherwise.
     */
    public SandboxRecord idleCountedFrom(Instant lastUse) {
        Instant deadline = state == SandboxState.RUNNING && spec != null && spec.idle() != null ? spec.idle().deadlineFrom(lastUse) : null;
        return copy(c -> c.idleDeadline = deadline);
    }

    /** A snapshot of it is going to the store (or it was adopted): from now on it may exist elsewhere. */
    public SandboxRecord markedInStore() {
        return copy(c -> c.inStore = true);
    }

    public SandboxRecord withSnapshot(String snapshotId) {
        return copy(c -> {
            c.snapshotIds.add(snapshotId);
            c.latestSnapshotId = snapshotId;
        });
    }

    private SandboxRecord copy(Consumer<Copy> change) {
        Copy copy = new Copy(this);
        change.accept(copy);
        return copy.build();
    }

    /** The mutable stand-in of a record while one change is applied. */
    private static final class Copy {
        private final SandboxRecord from;
        private SandboxSpec spec;
        private SandboxState state;
        private String failureReason;
        private String latestSnapshotId;
        private final List<String> snapshotIds;
        private VmRuntime runtime;
        private int epochs;
        private Operation lastOperation;
        private boolean deleteSnapshots;
        private Map<String, Long> lastTimingsMs;
        private Instant idleDeadline;
        private boolean inStore;

        private Copy(SandboxRecord r) {
            from = r;
            spec = r.spec;
            state = r.state;
            failureReason = r.failureReason;
            latestSnapshotId = r.latestSnapshotId;
            snapshotIds = new ArrayList<>(r.snapshotIds);
            runtime = r.runtime;
            epochs = r.epochs;
            lastOperation = r.lastOperation;
            deleteSnapshots = r.deleteSnapshots;
            lastTimingsMs = r.lastTimingsMs;
            idleDeadline = r.idleDeadline;
            inStore = r.inStore;
        }

        private SandboxRecord build() {
            return new SandboxRecord(from.id, spec, from.identity, state, failureReason, from.createdAt, Instant.now(),
                    from.sourceSnapshotId, latestSnapshotId, snapshotIds, runtime, epochs, lastOperation, deleteSnapshots, lastTimingsMs,
                    idleDeadline, inStore);
        }
    }
}
