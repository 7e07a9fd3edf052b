package dev.ateom.microvm.operations;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ProgressThrottleTest {
    private static final long MS = 1_000_000L;
    private final ProgressThrottle throttle = new ProgressThrottle();

    @Test
    void aStepShorterThanTheIntervalStillShowsItsSizeAndItsEnd() {
        // a pull of 8 MiB under load: its start, the total at 0 bytes, a chunk, the end, all within 100 ms (a fresh-clone run
        // showed only the step's name: every byte report fell in the interval after it)
        assertThat(throttle.due("pull", null, null, 0)).as("the step's start").isTrue();
        assertThat(throttle.due("pull", 0L, 8L << 20, 1 * MS)).as("the first report with bytes").isTrue();
        assertThat(throttle.due("pull", 4L << 20, 8L << 20, 30 * MS)).as("a report within the interval").isFalse();
        assertThat(throttle.due("pull", 8L << 20, 8L << 20, 60 * MS)).as("the report that reaches the total").isTrue();
        assertThat(throttle.due("pull", 8L << 20, 8L << 20, 70 * MS)).as("the total once more").isFalse();
    }

    @Test
    void byteReportsOfALongStepComeAtMostEveryInterval() {
        assertThat(throttle.due("archive", null, null, 0)).isTrue();
        assertThat(throttle.due("archive", 16L << 20, null, 5 * MS)).as("first bytes (total unknown)").isTrue();
        assertThat(throttle.due("archive", 32L << 20, null, 50 * MS)).isFalse();
        assertThat(throttle.due("archive", 48L << 20, null, 104 * MS)).isFalse();
        assertThat(throttle.due("archive", 64L << 20, null, 106 * MS)).as("an interval after the last published").isTrue();
    }

    @Test
    void everyNewStepIsShownAndStartsItsOwnFirstAndLastReports() {
        assertThat(throttle.due("snapshot", 0L, 10L, 0)).isTrue();
        assertThat(throttle.due("snapshot", 10L, 10L, 1 * MS)).isTrue();
        assertThat(throttle.due("archive", null, null, 2 * MS)).as("a new step").isTrue();
        assertThat(throttle.due("archive", 0L, 5L, 3 * MS)).as("its first bytes").isTrue();
        assertThat(throttle.due("archive", 5L, 5L, 4 * MS)).as("its end").isTrue();
    }
}
