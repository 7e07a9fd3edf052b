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

/** The lock of one sandbox: an operation that takes it while a suspend's teardown runs waits for that teardown. */
class SandboxEntryTest {
    private final SandboxEntry entry = new SandboxEntry(SandboxRecord.creating("s1", null, new ActorIdentity("s1", "tests", "uid-1"),
            null, Operation.CREATE));

    @Test
    void anOperationWaitsForAPendingTeardownAndThenRuns() throws Exception {
        CompletableFuture<Void> teardown = new CompletableFuture<>();
        entry.tearingDown(teardown);
        assertThat(entry.teardownPending()).isTrue();
        CountDownLatch locked = new CountDownLatch(1);
        Thread resume = Thread.ofVirtual().start(() -> {
            try (var lock = entry.acquire(Operation.RESUME)) {
                locked.countDown();
            }
        });
        assertThat(locked.await(200, TimeUnit.MILLISECONDS)).as("the resume ran before the teardown finished").isFalse();
        teardown.complete(null);
        assertThat(locked.await(30, TimeUnit.SECONDS)).as("the resume ran once the teardown finished").isTrue();
        resume.join();
        assertThat(entry.teardownPending()).isFalse();
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
