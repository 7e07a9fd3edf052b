package dev.ateom.microvm.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The scaling table, and with a baseline the before/after table matched by level and operation. */
class ScalingResultTest {
    @Test
    void withABaselineEachRowIsPrintedBesideTheSameLevelAndOperationBefore() {
        ScalingResult after = new ScalingResult("none");
        after.add(new ScalingResult.Row(20, "resume", 20, 0, 4.0, List.of(100.0, 300.0)));
        after.add(new ScalingResult.Row(20, "create", 20, 1, 2.0, List.of(50.0)));
        ScalingResult before = new ScalingResult("none");
        before.add(new ScalingResult.Row(20, "create", 20, 0, 4.0, List.of(100.0)));
        before.add(new ScalingResult.Row(20, "resume", 20, 20, 1.0, List.of()));

        after.baseline(before, "checkout /tmp/base");
        String table = after.markdown();

        assertThat(table).contains("none backend: scaling before (checkout /tmp/base) and after")
                .contains("| 20 | create | 100 | 50 | 0.50× | 100 | 50 | 0.50× | 5.00 | 9.50 | 0 / 1 |")
                .as("every request before failed: no latency to compare")
                .contains("| 20 | resume | – | – | – | – | – | – | 0.00 | 5.00 | 20 / 0 |");
    }

    @Test
    void withoutABaselineThereIsNoBeforeAndAfterTable() {
        ScalingResult alone = new ScalingResult("none");
        alone.add(new ScalingResult.Row(1, "create", 1, 0, 0.1, List.of(100.0)));

        assertThat(alone.markdown()).contains("| 1 | create | 1 | 0 | 10.00 | 100 | 100 | 100 |").doesNotContain("before");
    }
}
