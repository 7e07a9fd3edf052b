package dev.ateom.microvm.systeminfo;

import dev.ateom.microvm.systeminfo.SyncPlanner.Marks;
import dev.ateom.microvm.systeminfo.SyncPlanner.Plan;
import dev.ateom.microvm.systeminfo.SyncPlanner.Reason;
import dev.ateom.microvm.systeminfo.SyncPlanner.Task;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The sync loop's decisions on a clock of the test's own: coalescing, retries, reconciliation, and when to wake. */
class SyncPlannerTest {
    private static final Duration COALESCE = Duration.ofMillis(50);
    private static final Duration RECONCILE = Duration.ofSeconds(60);
    /** An arbitrary start, far from 0 (0 means "clean") and from overflow: nanoTime may be anything. */
    private static final long T0 = Long.MAX_VALUE - 30_000_000_000L;
    private static final long NEXT_RECONCILE = T0 + RECONCILE.toNanos();
    private static final Marks CLEAN = new Marks(0, false, 0);

    @Test
    void nothingChangedMeansSleepUntilTheNextReconciliation() {
        Plan<String> plan = plan(T0 + ms(10), false, Map.of("a", CLEAN, "b", CLEAN));
        assertThat(plan.due()).isEmpty();
        assertThat(plan.reconciles()).isFalse();
        assertThat(plan.wakeAt()).isEqualTo(NEXT_RECONCILE);
    }

    @Test
    void anEventIsSyncedOnceItsBurstHadTheCoalesceWindowToSettle() {
        Map<String, Marks> volumes = Map.of("a", new Marks(T0, false, 0));
        Plan<String> early = plan(T0 + ms(20), false, volumes);
        assertThat(early.due()).isEmpty();
        assertThat(early.wakeAt()).isEqualTo(T0 + COALESCE.toNanos());

        Plan<String> settled = plan(T0 + COALESCE.toNanos(), false, volumes);
        assertThat(settled.due()).containsExactly(Map.entry("a", new Task(Reason.EVENT, T0)));
        assertThat(settled.reconciles()).isFalse();
    }

    @Test
    void aFailedVolumeIsRetriedAtItsRetryTime() {
        Map<String, Marks> volumes = Map.of("a", new Marks(0, true, T0 + ms(1000)));
        assertThat(plan(T0 + ms(999), false, volumes).wakeAt()).isEqualTo(T0 + ms(1000));
        assertThat(plan(T0 + ms(1000), false, volumes).due()).containsExactly(Map.entry("a", new Task(Reason.RETRY, 0)));
    }

    @Test
    void reconciliationTakesEveryVolumeAndCarriesAPendingEventsTime() {
        Map<String, Marks> volumes = new LinkedHashMap<>();
        volumes.put("clean", CLEAN);
        volumes.put("dirty", new Marks(T0 + ms(5), false, 0));
        Plan<String> plan = plan(NEXT_RECONCILE, false, volumes);
        assertThat(plan.reconciles()).isTrue();
        assertThat(plan.due()).containsExactly(Map.entry("clean", new Task(Reason.RECONCILE, 0)),
                Map.entry("dirty", new Task(Reason.RECONCILE, T0 + ms(5))));
        assertThat(plan.nextReconcile()).isEqualTo(NEXT_RECONCILE + RECONCILE.toNanos());
    }

    @Test
    void aRequestedReconciliationRunsAtOnceAndRestartsTheInterval() {
        Plan<String> plan = plan(T0 + ms(7), true, Map.of("a", CLEAN));
        assertThat(plan.reconciles()).isTrue();
        assertThat(plan.due()).containsOnlyKeys("a");
        assertThat(plan.nextReconcile()).isEqualTo(T0 + ms(7) + RECONCILE.toNanos());
    }

    @Test
    void theEarliestOfSeveralDeadlinesWakesTheLoop() {
        Map<String, Marks> volumes = Map.of("event", new Marks(T0, false, 0), "retry", new Marks(0, true, T0 + ms(30)));
        assertThat(plan(T0 + ms(1), false, volumes).wakeAt()).isEqualTo(T0 + ms(30));
        assertThat(plan(T0 + ms(40), false, volumes).due()).containsOnlyKeys("retry");
    }

    private static Plan<String> plan(long now, boolean requested, Map<String, Marks> volumes) {
        return SyncPlanner.plan(now, requested, NEXT_RECONCILE, volumes, COALESCE, RECONCILE);
    }

    private static long ms(long millis) { return Duration.ofMillis(millis).toNanos(); }
}
