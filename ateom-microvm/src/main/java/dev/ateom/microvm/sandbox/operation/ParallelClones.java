package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.ForkRequest;
import dev.ateom.microvm.sandbox.ForkedClone;
import dev.ateom.microvm.sandbox.IdentitySpec;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.SandboxSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The clones of one fork, restored in parallel on virtual threads, each waiting for one of the daemon's restore
 * slots first. Each clone is a clone request like any other (its own lock, record, rollback): one that fails is
 * reported with its cause and leaves the others alone.
 */
final class ParallelClones {
    private final Semaphore restoreSlots;

    ParallelClones(Semaphore restoreSlots) { this.restoreSlots = restoreSlots; }

    /** Every clone's outcome, in the order asked. */
    List<ForkedClone> run(List<ForkRequest.ForkedIdentity> clones, String snapshotId, Supplier<String> newId,
                          Function<SandboxSpec, OperationResult> create) {
        List<Future<ForkedClone>> running = new ArrayList<>();
        try (ExecutorService threads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("ateom-fork-", 0).factory())) {
            for (ForkRequest.ForkedIdentity clone : clones) {
                String id = clone.id() != null ? clone.id() : newId.get();
                SandboxSpec request = new SandboxSpec(id, clone.identity(), null, null, null, null, null, null, null, null, null, null,
                        snapshotId, null, null);
                running.add(threads.submit(() -> restore(id, clone.identity(), request, create)));
            }
        }
        List<ForkedClone> out = new ArrayList<>();
        for (Future<ForkedClone> future : running) {
            try {
                out.add(future.get());
            } catch (ExecutionException e) {
                throw new IllegalStateException("a fork's clone thread failed outside its clone", e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the clones of a fork", e);
            }
        }
        return out;
    }

    private ForkedClone restore(String id, IdentitySpec identity, SandboxSpec request, Function<SandboxSpec, OperationResult> create) {
        try {
            restoreSlots.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ForkedClone.failed(id, identity, new IllegalStateException("interrupted before its restore started"));
        }
        try {
            return ForkedClone.running(create.apply(request));
        } catch (RuntimeException e) {
            return ForkedClone.failed(id, identity, e);
        } finally {
            restoreSlots.release();
        }
    }
}
