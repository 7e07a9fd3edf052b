package dev.ateom.microvm.events;

import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.SandboxState;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class EventLogTest {
    private static final Duration NO_WAIT = Duration.ZERO;

    @Test
    void eventsAreNumberedInOrderAndASubscriberSeesThoseAfterItsSinceThenTheLiveOnesWithoutAGap() throws Exception {
        EventLog log = new EventLog(8, 16);
        for (int i = 0; i < 5; i++) log.publish(state("a"));
        EventSubscription replaying = log.subscribe(2L, e -> true).orElseThrow();
        log.publish(state("b"));
        assertThat(drain(replaying)).extracting(SandboxEvent::id).containsExactly(3L, 4L, 5L, 6L);
        EventSubscription fresh = log.subscribe(null, e -> true).orElseThrow();
        log.publish(state("c"));
        assertThat(drain(fresh)).extracting(SandboxEvent::id).containsExactly(7L);
    }

    @Test
    void aSinceOlderThanTheRingOrFromAnotherDaemonRunIsRefusedButTheLastKeptOneIsNot() {
        EventLog log = new EventLog(4, 16);
        for (int i = 0; i < 10; i++) log.publish(state("a"));
        // the ring holds 7..10: since=6 misses nothing, since=5 would miss event 6
        assertThat(log.subscribe(6L, e -> true)).isPresent();
        assertThat(log.subscribe(5L, e -> true)).isEmpty();
        assertThat(log.subscribe(10L, e -> true)).isPresent();
        assertThat(log.subscribe(11L, e -> true)).as("an id this run never gave").isEmpty();
        assertThat(new EventLog(4, 16).subscribe(0L, e -> true)).as("since 0 on an empty log").isPresent();
    }

    @Test
    void aSubscriberThatNeverReadsIsCutOffAndNeitherBlocksThePublisherNorTheOthers() throws Exception {
        EventLog log = new EventLog(64, 10);
        EventSubscription stalled = log.subscribe(null, e -> true).orElseThrow();
        EventSubscription reader = log.subscribe(null, e -> true).orElseThrow();
        List<SandboxEvent> read = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            log.publish(state("a"));
            read.addAll(drain(reader));
        }
        assertThat(read).hasSize(1000);
        List<SandboxEvent> stalledGot = new ArrayList<>();
        EventSubscription.Next next;
        while ((next = stalled.next(NO_WAIT)).event() != null) stalledGot.add(next.event());
        assertThat(stalledGot).as("what fitted before the cut").hasSize(10);
        assertThat(next.ending()).isEqualTo(EventSubscription.Ending.CUT_OFF);
    }

    @Test
    void aFilterKeepsOneSandboxAndClosingTheLogEndsEverySubscription() throws Exception {
        EventLog log = new EventLog(64, 16);
        EventSubscription onlyB = log.subscribe(null, e -> "b".equals(e.sandboxId())).orElseThrow();
        log.publish(state("a"));
        log.publish(SandboxEvent.operationFinished("b", SandboxState.SUSPENDED, Operation.SUSPEND, null, "b-1", null));
        log.close();
        assertThat(onlyB.next(NO_WAIT).event().snapshotId()).isEqualTo("b-1");
        assertThat(onlyB.next(NO_WAIT).ending()).isEqualTo(EventSubscription.Ending.CLOSED);
    }

    private static SandboxEvent state(String sandbox) {
        return SandboxEvent.stateChanged(sandbox, SandboxState.RUNNING, SandboxState.SUSPENDING, Operation.SUSPEND);
    }

    private static List<SandboxEvent> drain(EventSubscription subscription) throws InterruptedException {
        List<SandboxEvent> out = new ArrayList<>();
        SandboxEvent event;
        while ((event = subscription.next(NO_WAIT).event()) != null) out.add(event);
        return out;
    }
}
