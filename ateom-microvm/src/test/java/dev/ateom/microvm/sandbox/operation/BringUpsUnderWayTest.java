package dev.ateom.microvm.sandbox.operation;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The count of bring-ups under way and the wait for none: bounded, woken by the last end, each mark counted once. */
class BringUpsUnderWayTest {
    @Test
    void theWaitEndsWhenTheLastBringUpEndsOrAtItsBound() throws Exception {
        BringUpsUnderWay bringUps = new BringUpsUnderWay();
        assertThat(bringUps.awaitNone(Duration.ZERO)).as("none under way").isTrue();
        BringUpsUnderWay.Mark first = bringUps.begin();
        BringUpsUnderWay.Mark second = bringUps.begin();

        assertThat(bringUps.awaitNone(Duration.ofMillis(50))).as("at its bound, two under way").isFalse();
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return bringUps.awaitNone(Duration.ofSeconds(60));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        first.close();
        first.close();
        assertThat(bringUps.awaitNone(Duration.ofMillis(50))).as("a mark closed twice counts once").isFalse();
        assertThat(waiting).isNotDone();
        second.close();

        assertThat(waiting.get(10, TimeUnit.SECONDS)).as("woken by the last end").isTrue();
    }
}
