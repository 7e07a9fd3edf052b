package dev.ateom.microvm.operations;

import dev.ateom.microvm.http.Problem;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.timing.OperationProgress;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One asynchronous operation while it runs and after it finished: what its thread reports ({@link OperationProgress}),
 * its outcome, and when a client first saw it finished (for {@link OperationRetention}). Its request waits on
 * {@link #admission()}: the operation either passes its checks (202) or fails them (the request's own problem).
 */
final class TrackedOperation implements OperationProgress {
    private final String id;
    private final Operation operation;
    private final String instance;
    private final int successStatus;
    private final InstantSource clock;
    private final Instant startedAt;
    private final ProgressThrottle throttle = new ProgressThrottle();
    private final CompletableFuture<Void> admission = new CompletableFuture<>();
    private final Consumer<OperationStatus> progressEvents;

    private boolean admitted;
    private String sandboxId;
    private OperationState state = OperationState.RUNNING;
    private String step;
    private Long bytesDone;
    private Long bytesTotal;
    private Instant finishedAt;
    private Object result;
    private Problem problem;
    private Instant seenFinishedAt;

    /** @param progressEvents where throttled progress goes once the operation is admitted (the events stream) */
    TrackedOperation(String id, Operation operation, String sandboxId, String instance, int successStatus, InstantSource clock,
                     Consumer<OperationStatus> progressEvents) {
        this.id = id;
        this.progressEvents = progressEvents;
        this.operation = operation;
        this.sandboxId = sandboxId;
        this.instance = instance;
        this.successStatus = successStatus;
        this.clock = clock;
        this.startedAt = clock.instant();
    }

    String id() { return id; }

    /** Completes when the operation is admitted; exceptionally, with the request's problem, when it is refused. */
    CompletableFuture<Void> admission() { return admission; }

    @Override
    public void admitted(String admittedSandboxId) {
        synchronized (this) {
            if (admitted) return;
            admitted = true;
            if (admittedSandboxId != null) sandboxId = admittedSandboxId;
        }
        admission.complete(null);
    }

    @Override
    public void step(String name) {
        OperationStatus status;
        synchronized (this) {
            step = name;
            bytesDone = null;
            bytesTotal = null;
            status = status();
        }
        publish(status);
    }

    @Override
    public void bytes(long done, long total) {
        OperationStatus status;
        synchronized (this) {
            bytesDone = done;
            bytesTotal = total < 0 ? null : Math.max(total, done);
            status = status();
        }
        publish(status);
    }

    private void publish(OperationStatus status) {
        synchronized (this) {
            if (!admitted || status.step() == null) return;
        }
        if (throttle.due(status.step(), status.bytesDone(), status.bytesTotal(), System.nanoTime())) progressEvents.accept(status);
    }

    /** The operation returned {@code body}, the answer of its synchronous call. */
    void succeeded(Object body) {
        synchronized (this) {
            finish(OperationState.SUCCEEDED);
            result = body;
        }
        admission.complete(null);
    }

    /**
     * The operation threw: before its admission that is the request's problem (it is answered synchronously and this
     * operation never becomes visible), after it the operation's.
     */
    void failed(Throwable cause, Problem asAnswered) {
        synchronized (this) {
            if (admitted) {
                finish(OperationState.FAILED);
                problem = asAnswered;
                return;
            }
        }
        admission.completeExceptionally(cause);
    }

    private void finish(OperationState outcome) {
        state = outcome;
        finishedAt = clock.instant();
    }

    /** The client's view; the first view of a finished operation starts its grace period. */
    synchronized OperationStatus fetch() {
        if (finishedAt != null && seenFinishedAt == null) seenFinishedAt = clock.instant();
        return status();
    }

    synchronized OperationStatus status() {
        Integer status = switch (state) {
            case RUNNING -> null;
            case SUCCEEDED -> successStatus;
            case FAILED -> problem.status();
        };
        return new OperationStatus(id, operation, sandboxId, state, step, bytesDone, bytesTotal, startedAt, finishedAt, status, result, problem);
    }

    synchronized String sandboxId() { return sandboxId; }

    Operation operation() { return operation; }

    String instance() { return instance; }

    /** When it finished, or null while it runs. */
    synchronized Instant finishedAt() { return finishedAt; }

    /** When a client first saw it finished, or null. */
    synchronized Instant seenFinishedAt() { return seenFinishedAt; }
}
