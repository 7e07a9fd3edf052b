package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.logging.LogContext;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.RemoteStoreException;
import dev.ateom.microvm.sandbox.SandboxLeases;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import static java.lang.System.Logger.Level.WARNING;

/**
 * "A sandbox holds its lease while it runs here" (docs/decisions.md, snapshot store), where leases are held while
 * running: create, clone and resume take it beside their bring-up ({@link #claim}), and a sandbox that is not
 * running after an operation gives it back in the background ({@link #follow}: after a suspend's processes stopped,
 * after a failed create or resume). The store calls of one sandbox run one after another in the order they were
 * asked for (each is queued under the sandbox's lock), so a resume's take never overtakes the give-back of the
 * suspend before it. Where leases are not held while running, only adopt and delete touch them, as before.
 * A store that cannot be asked refuses only what concerns a sandbox that may exist elsewhere ({@link #claim}).
 */
public final class LeaseKeeper implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(LeaseKeeper.class.getName());
    /** How long a daemon stop waits for the give-backs of the suspends it ran. */
    private static final Duration CLOSE_LIMIT = Duration.ofSeconds(20);

    private final SandboxLeases leases;
    private final Map<String, CompletableFuture<Void>> queues = new ConcurrentHashMap<>();
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("lease-", 0).factory());

    public LeaseKeeper(SandboxLeases leases) { this.leases = leases; }

    /** Adopt, before the adopted sandbox exists: takes its lease and waits (refused when leases cannot be had). */
    public void acquire(String sandboxId) {
        join(enqueue(sandboxId, () -> leases.acquire(sandboxId)));
    }

    /**
     * Create, clone or resume, under the sandbox's lock: starts taking its lease, which the bring-up awaits before the
     * VM is created. Another host's lease refuses it whenever the store answers; a store that cannot be asked refuses
     * it only for a sandbox that may exist elsewhere ({@link SandboxRecord#inStore}), any other runs without a lease
     * (warned about: no other host has anything of it to run). Where leases are not held while running, a resume
     * checks here that no other host holds one.
     */
    public LeaseClaim claim(SandboxRecord sandbox, Operation operation) {
        String id = sandbox.id();
        if (!leases.heldWhileRunning()) {
            if (operation == Operation.RESUME) leases.requireNotHeldByAnother(id);
            return LeaseClaim.NONE;
        }
        boolean required = sandbox.inStore();
        return LeaseClaim.of(enqueue(id, () -> take(id, required, operation)));
    }

    /**
     * A push of a snapshot of a sandbox that runs here, before anything is sent: the sandbox holds its lease from now
     * on (it may have started without one while the store could not be asked), so no other host adopts the pushed
     * snapshot while it runs here. Refused when the lease cannot be had.
     */
    public void holdBeforePush(String sandboxId) {
        if (!leases.heldWhileRunning()) return;
        join(enqueue(sandboxId, () -> take(sandboxId, true, null)));
    }

    private void take(String id, boolean required, Operation operation) {
        try {
            leases.acquire(id);
        } catch (RemoteStoreException e) {
            if (e.kind() == RemoteStoreException.Kind.LEASE_HELD) throw e;
            if (e.kind() == RemoteStoreException.Kind.LEASES_UNAVAILABLE) {
                // the first probe since an unreachable start found conditional writes not honoured: leases are
                // adopt-only on this store (as if probed at start), so a resume only checks nobody else holds one
                if (operation == Operation.RESUME) leases.requireNotHeldByAnother(id);
                return;
            }
            if (required) {
                throw new RemoteStoreException(e.kind(), e.detail() + "; sandbox " + id + " has been in the snapshot store "
                        + "(inStore), so it does not run without its lease", e.option(), e.getCause());
            }
            String why = e.getCause() != null ? e.getCause().getMessage() : e.detail(); // the store's words, not the refusal's
            LOG.log(WARNING, "sandbox " + id + ": " + operation.wireName() + " goes on without its lease (" + why + "); "
                    + "none of its snapshots was ever in the store, so no other host can run it, and a push of one takes the lease first");
        }
    }

    /**
     * After an operation, under the sandbox's lock: a sandbox that is not running here gives its lease back, in the
     * background and once the processes a suspend left stopping are gone (the operation's answer does not wait).
     */
    public void follow(SandboxEntry entry) {
        entry.claiming(LeaseClaim.NONE);
        if (!leases.heldWhileRunning() || entry.record().state() == SandboxState.RUNNING) return;
        String id = entry.record().id();
        enqueue(id, () -> {
            entry.awaitTeardown();
            leases.release(id);
        });
    }

    /** Runs an operation, then (under the same lock) gives the lease back if the sandbox no longer runs here ({@link #follow}). */
    public <T> T following(SandboxEntry entry, Supplier<T> operation) {
        try {
            return operation.get();
        } finally {
            follow(entry);
        }
    }

    /** Delete, under the sandbox's lock: gives this host's lease back and waits. */
    public void release(String sandboxId) {
        join(enqueue(sandboxId, () -> leases.release(sandboxId)));
    }

    /**
     * At start, for the sandboxes recovery settled out of a running or transitional state: a RUNNING one (its VM
     * adopted) still holds its lease, taken again in case it was lost (a lease another host holds now is warned
     * about); one that is not running gives back what the interrupted operation took.
     */
    public void afterRecovery(List<SandboxEntry> settled) {
        if (!leases.heldWhileRunning()) return;
        for (SandboxEntry entry : settled) {
            String id = entry.record().id();
            if (entry.record().state() == SandboxState.RUNNING) {
                enqueue(id, () -> {
                    try {
                        leases.acquire(id);
                    } catch (RuntimeException e) {
                        LOG.log(WARNING, "sandbox " + id + " runs on this host but its lease cannot be held: " + e.getMessage());
                    }
                });
            } else {
                enqueue(id, () -> leases.release(id));
            }
        }
    }

    private CompletableFuture<Void> enqueue(String sandboxId, Runnable call) {
        CompletableFuture<Void> queued = queues.compute(sandboxId, (id, previous) ->
                (previous == null ? CompletableFuture.<Void>completedFuture(null) : previous.exceptionally(e -> null))
                        .thenRunAsync(() -> {
                            try (var log = LogContext.with("sandbox", id)) {
                                call.run();
                            }
                        }, threads));
        queued.whenComplete((done, failure) -> queues.remove(sandboxId, queued));
        return queued;
    }

    private static void join(CompletableFuture<Void> call) {
        try {
            call.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) throw cause;
            throw e;
        }
    }

    /** Waits (bounded) for the calls still queued, e.g. the give-backs of the suspends a daemon stop ran. */
    @Override
    public void close() {
        try {
            CompletableFuture.allOf(queues.values().toArray(CompletableFuture[]::new)).exceptionally(e -> null)
                    .get(CLOSE_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.log(WARNING, "lease calls still queued after " + CLOSE_LIMIT + " (" + queues.keySet() + "); stopping anyway: "
                    + "a lease this host did not give back stays in the store until its sandbox is resumed and suspended or deleted here");
        } catch (ExecutionException e) {
            LOG.log(WARNING, "a lease call failed at stop: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        threads.shutdown();
    }
}
