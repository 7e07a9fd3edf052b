package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.BusyException;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.systeminfo.spec.ActorIdentity;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock of one sandbox: an operation that takes it while a suspend's teardown runs waits for that teardown; a resume
 * takes it at once and waits for the old VM in its bring-up.
 */
class SandboxEntryTest {
    private final SandboxEntry entry = new SandboxEntry(SandboxRecord.creating("s1", null, new ActorIdentity("s1", "tests", "uid-1"),
            null, Operation.CREATE));

    @Test
    void anOperationWaitsForAPendingTeardownAndThenRuns() throws Exception {
        CompletableFuture<Void> teardown = new CompletableFuture<>();
        entry.tearingDown(teardown, teardown);
        assertThat(entry.teardownPending()).isTrue();
        CountDownLatch locked = new CountDownLatch(1);
        Thread delete = Thread.ofVirtual().start(() -> {
            try (var lock = entry.acquire(Operation.DELETE)) {
                locked.countDown();
            }
        });
        assertThat(locked.await(200, TimeUnit.MILLISECONDS)).as("the delete ran before the teardown finished").isFalse();
        teardown.complete(null);
        assertThat(locked.await(30, TimeUnit.SECONDS)).as("the delete ran once the teardown finished").isTrue();
        delete.join();
        assertThat(entry.teardownPending()).isFalse();
    }

    @Test
    void aResumeTakesTheLockAtOnceAndWaitsOnlyForTheOldVmWhereItMust() throws Exception {
        CompletableFuture<Void> vmGone = new CompletableFuture<>();
        CompletableFuture<Void> teardown = new CompletableFuture<>();
        entry.tearingDown(vmGone, teardown);
        try (var lock = entry.acquire(Operation.RESUME)) {
            assertThat(entry.vmGonePending()).as("the old VM is still being stopped while the resume holds the lock").isTrue();
            vmGone.complete(null);
            entry.awaitVmGone();
            assertThat(entry.teardownPending()).as("the record's part of the teardown may still run").isTrue();
        }
        teardown.complete(null);
    }

    @Test
    void aSecondOperationIsStillRefusedWhileTheFirstHoldsTheLock() throws Exception {
        try (var lock = entry.acquire(Operation.RESUME)) {
            CompletableFuture<Throwable> refusal = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try (var second = entry.acquire(Operation.DELETE)) {
                    refusal.complete(null);
                } catch (RuntimeException e) {
                    refusal.complete(e);
                }
            }).join();
            assertThat(refusal.get()).isInstanceOf(BusyException.class);
        }
    }
}
