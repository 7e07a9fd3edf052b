package dev.ateom.microvm.vm;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class BringUpsInFlightTest {
    @Test
    void withNoneRunningTheWaitIsOverAtOnce() throws Exception {
        BringUpsInFlight bringUps = new BringUpsInFlight();
        long start = System.nanoTime();
        assertThat(bringUps.awaitNone(Duration.ofSeconds(30))).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void theWaitEndsWhenTheLastOneDoesOrAtItsBound() throws Exception {
        BringUpsInFlight bringUps = new BringUpsInFlight();
        BringUpsInFlight.Token first = bringUps.begin();
        BringUpsInFlight.Token second = bringUps.begin();

        long start = System.nanoTime();
        assertThat(bringUps.awaitNone(Duration.ofMillis(100))).as("two run: the bound passes first").isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(100));

        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return bringUps.awaitNone(Duration.ofSeconds(60));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        first.close();
        first.close();
        assertThat(bringUps.running()).as("a second close counts for nothing").isEqualTo(1);
        Thread.sleep(100);
        assertThat(waiting).as("one still runs").isNotDone();
        second.close();
        assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(bringUps.running()).isZero();
    }
}
