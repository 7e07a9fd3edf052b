package dev.ateom.microvm.operations;

import dev.ateom.microvm.events.EventLog;
import dev.ateom.microvm.events.EventSubscription;
import dev.ateom.microvm.events.SandboxEvent;
import dev.ateom.microvm.sandbox.InvalidStateException;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.timing.OperationProgress;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The registry without a daemon: admission, outcome, progress events and retention on a clock the test moves. */
class OperationRegistryTest {
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    private final InstantSource clock = () -> now.get();
    private final EventLog events = new EventLog(64, 64);
    private final OperationRegistry registry = new OperationRegistry(events, new OperationRetention(Duration.ofMinutes(15),
            Duration.ofSeconds(10), 2), clock);

    @Test
    void aCallRefusedBeforeItsAdmissionIsThrownToTheRequestAndNeverListed() {
        assertThatThrownBy(() -> registry.start(Operation.SUSPEND, "s1", "/v1/sandboxes/s1/suspend", 200, () -> {
            throw new InvalidStateException("s1", SandboxState.SUSPENDED, Operation.SUSPEND);
        })).isInstanceOf(InvalidStateException.class);
        assertThat(registry.list()).isEmpty();
    }

    @Test
    void anAdmittedCallReportsItsStepsAndBytesAndEndsWithItsAnswerOrItsProblem() throws Exception {
        CountDownLatch proceed = new CountDownLatch(1);
        EventSubscription subscription = events.subscribe(null, e -> true).orElseThrow();
        OperationStatus started = registry.start(Operation.SUSPEND, "s1", "/v1/sandboxes/s1/suspend", 200, () -> {
            OperationProgress progress = OperationProgress.current();
            progress.admitted("s1");
            progress.step("archive");
            progress.bytes(16, 64);
            proceed.await();
            return "the answer";
        });
        assertThat(started.state()).isEqualTo(OperationState.RUNNING);
        // the step and the bytes are two reports: wait for both, as a poller that saw the step may not see the bytes yet
        OperationStatus running = awaitStatus(started.id(), s -> "archive".equals(s.step()) && s.bytesDone() != null);
        assertThat(running.bytesDone()).isEqualTo(16);
        assertThat(running.bytesTotal()).isEqualTo(64);
        proceed.countDown();
        OperationStatus done = awaitFinished(started.id());
        assertThat(done.state()).isEqualTo(OperationState.SUCCEEDED);
        assertThat(done.result()).isEqualTo("the answer");
        assertThat(done.status()).isEqualTo(200);

        OperationStatus failed = awaitFinished(registry.start(Operation.CHECKPOINT, "s1", "/v1/sandboxes/s1/checkpoint", 200, () -> {
            OperationProgress.current().admitted("s1");
            throw new IllegalStateException("broken");
        }).id());
        assertThat(failed.state()).isEqualTo(OperationState.FAILED);
        assertThat(failed.status()).isEqualTo(500);
        assertThat(failed.problem().type()).endsWith("/internal-error");
        assertThat(failed.problem().instance()).isEqualTo("/v1/sandboxes/s1/checkpoint");

        List<SandboxEvent> progress = new ArrayList<>();
        for (SandboxEvent e = subscription.next(Duration.ofMillis(50)).event(); e != null; e = subscription.next(Duration.ofMillis(50)).event()) {
            if (e.type() == SandboxEvent.Type.PROGRESS) progress.add(e);
        }
        assertThat(progress).isNotEmpty().allMatch(e -> e.progress().operationId().equals(started.id()) && e.sandboxId().equals("s1"));
        subscription.close();
    }

    @Test
    void aFinishedOperationGoesAGraceAfterItsFirstFetchOrAtItsTimeToLiveAndOnlyTheLastFinishedAreKept() throws Exception {
        String fetched = awaitFinished(quick()).id(); // its first fetch finished starts its grace
        String unfetched = quick();
        awaitFinishedInList(unfetched);
        now.set(now.get().plusSeconds(9));
        assertThat(registry.fetch(fetched)).as("within the grace").isPresent();
        now.set(now.get().plusSeconds(1));
        assertThat(registry.fetch(fetched)).as("the grace passed").isEmpty();
        assertThat(registry.list()).extracting(OperationStatus::id).containsExactly(unfetched);
        now.set(now.get().plusSeconds(15 * 60 - 20));
        assertThat(registry.list()).as("listing is not fetching").extracting(OperationStatus::id).containsExactly(unfetched);
        now.set(now.get().plusSeconds(10));
        assertThat(registry.fetch(unfetched)).as("time to live over").isEmpty();

        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(quick());
            awaitFinishedInList(ids.getLast());
            now.set(now.get().plusMillis(1));
        }
        assertThat(registry.list()).as("the last two finished").extracting(OperationStatus::id).containsExactly(ids.get(2), ids.get(3));
    }

    private String quick() {
        return registry.start(Operation.SUSPEND, "s1", "/v1/sandboxes/s1/suspend", 200, () -> {
            OperationProgress.current().admitted("s1");
            return "ok";
        }).id();
    }

    private OperationStatus awaitStatus(String id, Predicate<OperationStatus> reached) throws InterruptedException {
        OperationStatus status = null;
        for (int i = 0; i < 1000; i++) {
            status = registry.list().stream().filter(s -> s.id().equals(id)).findFirst().orElseThrow();
            if (reached.test(status)) return status;
            TimeUnit.MILLISECONDS.sleep(10);
        }
        throw new AssertionError("operation " + id + " never reached the status awaited; last " + status);
    }

    private void awaitFinishedInList(String id) throws InterruptedException {
        for (int i = 0; i < 1000; i++) {
            if (registry.list().stream().anyMatch(s -> s.id().equals(id) && s.finishedAt() != null)) return;
            TimeUnit.MILLISECONDS.sleep(10);
        }
        throw new AssertionError("operation " + id + " did not finish");
    }

    private OperationStatus awaitFinished(String id) throws InterruptedException {
        awaitFinishedInList(id);
        return registry.fetch(id).orElseThrow();
    }
}
