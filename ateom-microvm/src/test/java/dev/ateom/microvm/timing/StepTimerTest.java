package dev.ateom.microvm.timing;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The steps' durations for the answer, and their trace: when each ran, so that overlaps and gaps show. */
class StepTimerTest {
    @Test
    void theTraceShowsWhenEachStepRanAndWhichOverlapped() throws Exception {
        StepTimer timer = new StepTimer("test-trace");
        CountDownLatch besideRuns = new CountDownLatch(1);
        CompletableFuture<String> beside = timer.stepBeside("beside", () -> {
            besideRuns.countDown();
            sleep(40);
            return "done";
        });
        assertThat(besideRuns.await(10, TimeUnit.SECONDS)).isTrue();
        timer.run("first", () -> sleep(20));
        sleep(15); // a gap: no step
        timer.run("second", () -> sleep(5));
        assertThat(beside.join()).isEqualTo("done");
        timer.span("waited", System.nanoTime() - 2_000_000, System.nanoTime());

        List<StepSpan> trace = timer.trace();
        assertThat(trace).extracting(StepSpan::name).containsExactly("beside", "first", "second", "waited");
        StepSpan besideSpan = trace.get(0);
        StepSpan first = trace.get(1);
        StepSpan second = trace.get(2);
        assertThat(besideSpan.beside()).isTrue();
        assertThat(first.beside()).isFalse();
        assertThat(besideSpan.micros()).isGreaterThanOrEqualTo(40_000);
        assertThat(first.micros()).isGreaterThanOrEqualTo(20_000);
        assertThat(first.startMicros()).as("first ran while the step beside did").isLessThan(besideSpan.startMicros() + besideSpan.micros());
        assertThat(second.startMicros() - (first.startMicros() + first.micros())).as("the gap between the two").isGreaterThanOrEqualTo(15_000);
        assertThat(trace.get(3).micros()).isBetween(1_900L, 100_000L);
        assertThat(second.toString()).isEqualTo("second@" + second.startMicros() + "+" + second.micros());
        assertThat(besideSpan.toString()).startsWith("beside~@");
        // the answer's timings stay durations in ms
        assertThat(timer.timings()).containsKeys("beside", "first", "second", "waited", "total");
        assertThat(timer.timings().get("first")).isGreaterThanOrEqualTo(20);
    }

    @Test
    void aRepeatedStepIsInTheTraceOncePerRunAndAddsUpInTheTimings() {
        StepTimer timer = new StepTimer("test-repeat");
        timer.run("again", () -> sleep(3));
        timer.account("records", () -> sleep(2));
        timer.run("again", () -> sleep(3));
        assertThat(timer.trace()).extracting(StepSpan::name).containsExactly("again", "records", "again");
        assertThat(timer.timings().get("again")).isGreaterThanOrEqualTo(6);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
