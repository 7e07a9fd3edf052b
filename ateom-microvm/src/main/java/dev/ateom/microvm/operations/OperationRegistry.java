package dev.ateom.microvm.operations;

import dev.ateom.microvm.events.EventLog;
import dev.ateom.microvm.events.SandboxEvent;
import dev.ateom.microvm.http.ExceptionProblems;
import dev.ateom.microvm.logging.LogContext;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.timing.OperationProgress;

import java.time.Instant;
import java.time.InstantSource;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;

import static java.lang.System.Logger.Level.INFO;

/**
 * The daemon's asynchronous operations ({@code ?async=true}): each runs on a virtual thread of its own that reports
 * its progress ({@link OperationProgress}), kept here by id until {@link OperationRetention} lets it go. Progress is
 * also published on the events stream, throttled, with the operation's id.
 */
public final class OperationRegistry {
    private static final System.Logger LOG = System.getLogger(OperationRegistry.class.getName());

    private final EventLog events;
    private final OperationRetention retention;
    private final InstantSource clock;
    private final Map<String, TrackedOperation> operations = new LinkedHashMap<>();

    public OperationRegistry(EventLog events, OperationRetention retention, InstantSource clock) {
        this.events = events;
        this.retention = retention;
        this.clock = clock;
    }

    /**
     * Starts {@code work} (the synchronous call: it answers the synchronous body or throws) on a thread of its own and
     * waits until it is admitted. A failure before that is thrown here, so the request answers it as it always did.
     *
     * @param sandboxId     the sandbox, when known before the operation runs (a clone's may be made by it)
     * @param instance      the request's path, the {@code instance} of a problem
     * @param successStatus the status the synchronous call answers on success
     * @return the admitted operation as it is now
     */
    public OperationStatus start(Operation operation, String sandboxId, String instance, int successStatus, Callable<?> work) {
        TrackedOperation tracked = new TrackedOperation(newId(), operation, sandboxId, instance, successStatus, clock,
                this::publishProgress);
        Thread.ofVirtual().name("ateom-operation-" + tracked.id()).start(() -> run(tracked, work));
        try {
            tracked.admission().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException refused) throw refused;
            throw e;
        } catch (CancellationException e) {
            throw new IllegalStateException("operation " + tracked.id() + " was cancelled before it was admitted", e);
        }
        synchronized (this) {
            sweep();
            operations.put(tracked.id(), tracked);
        }
        LOG.log(INFO, "operation " + tracked.id() + ": " + operation.wireName() + " of sandbox " + tracked.sandboxId() + " runs asynchronously");
        return tracked.status();
    }

    private static void run(TrackedOperation tracked, Callable<?> work) {
        try (var log = LogContext.with("operation", tracked.id())) {
            tracked.succeeded(OperationProgress.reportingTo(tracked, work));
        } catch (Exception | Error e) {
            tracked.failed(e, ExceptionProblems.of(e, tracked.instance()));
        }
    }

    /** The operation, if still kept; a look at a finished one starts its grace period. */
    public synchronized Optional<OperationStatus> fetch(String id) {
        sweep();
        return Optional.ofNullable(operations.get(id)).map(TrackedOperation::fetch);
    }

    /** Every operation kept, oldest first; listing does not count as seeing one. */
    public synchronized List<OperationStatus> list() {
        sweep();
        return operations.values().stream().map(TrackedOperation::status).toList();
    }

    private void publishProgress(OperationStatus status) {
        events.publish(SandboxEvent.progress(status.sandboxId(), status.operation(),
                new SandboxEvent.Progress(status.id(), status.step(), status.bytesDone(), status.bytesTotal())));
    }

    /** Drops what retention lets go: expired ones, then the oldest finished beyond the bound. */
    private void sweep() {
        Instant now = clock.instant();
        operations.values().removeIf(op -> retention.expired(op.finishedAt(), op.seenFinishedAt(), now));
        List<TrackedOperation> finished = operations.values().stream().filter(op -> op.finishedAt() != null)
                .sorted(Comparator.comparing(TrackedOperation::finishedAt)).toList();
        for (int i = 0; i < finished.size() - retention.maxFinished(); i++) operations.remove(finished.get(i).id());
    }

    private static String newId() {
        byte[] random = new byte[8];
        ThreadLocalRandom.current().nextBytes(random);
        return "op-" + HexFormat.of().formatHex(random);
    }
}
