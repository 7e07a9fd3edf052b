package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.GuestProbe;
import dev.ateom.microvm.sandbox.GuestProbeAnswer;
import dev.ateom.microvm.sandbox.IdentitySpec;
import dev.ateom.microvm.sandbox.IdleSpec;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.ReadinessSpec;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxSpec;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.sandbox.VmRuntime;
import dev.ateom.microvm.systeminfo.spec.ActorIdentity;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The guest-activity half of the idle timeout, against a scripted probe: what counts as a change, and who is asked. */
class GuestActivityTest {
    private final AtomicLong counter = new AtomicLong(7);
    private final List<Path> asked = new ArrayList<>();
    private volatile boolean silent;
    private final GuestActivity activity = new GuestActivity(new ScriptedProbe());

    @Test
    void aChangedCounterIsActivityOnceAndAnUnchangedOneIsNot() {
        SandboxRecord record = running(new ReadinessSpec("probe", 1024L, null));
        assertThat(activity.reportsNow(record)).as("the first reading is the baseline").isFalse();
        assertThat(activity.reportsNow(record)).isFalse();
        counter.incrementAndGet();
        assertThat(activity.reportsNow(record)).isTrue();
        assertThat(activity.reportsNow(record)).as("reported once").isFalse();
        assertThat(asked).containsOnly(Path.of("/run/s1/e1/vsock.socket"));
    }

    @Test
    void aProbeThatDoesNotAnswerReportsNothingAndTheNextAnswerIsComparedWithTheLastGoodOne() {
        SandboxRecord record = running(new ReadinessSpec("probe", 1024L, null));
        activity.reportsNow(record);
        silent = true;
        counter.incrementAndGet();
        assertThat(activity.reportsNow(record)).isFalse();
        silent = false;
        assertThat(activity.reportsNow(record)).as("the change made while it was silent").isTrue();
    }

    @Test
    void aSandboxWithoutAProbeIsNeverAskedAndForgettingStartsFromAFreshReading() {
        assertThat(activity.reportsNow(running(ReadinessSpec.NONE))).isFalse();
        assertThat(activity.reportedSince(running(null), Instant.now())).isFalse();
        assertThat(asked).isEmpty();

        SandboxRecord record = running(new ReadinessSpec("probe", 1024L, null));
        activity.reportsNow(record);
        counter.incrementAndGet();
        activity.forget("s1");
        assertThat(activity.reportsNow(record)).as("a new baseline after the sandbox stopped running").isFalse();
    }

    @Test
    void pollsAreAQuarterOfTheTimeoutWithinOneToThirtySecondsAndTheTickAtMostASecond() {
        assertThat(GuestActivity.interval(new IdleSpec(2L, "suspend"))).isEqualTo(Duration.ofSeconds(1));
        assertThat(GuestActivity.interval(new IdleSpec(60L, "suspend"))).isEqualTo(Duration.ofSeconds(15));
        assertThat(GuestActivity.interval(new IdleSpec(3600L, "delete"))).isEqualTo(Duration.ofSeconds(30));
        assertThat(IdleTimeouts.tickFor(Duration.ofSeconds(1))).isEqualTo(Duration.ofMillis(500));
        assertThat(IdleTimeouts.tickFor(Duration.ofSeconds(60))).isEqualTo(Duration.ofSeconds(1));
    }

    private static SandboxRecord running(ReadinessSpec readiness) {
        SandboxSpec spec = new SandboxSpec("s1", new IdentitySpec("s1", "tests"), 1, 128, "/k", null, null, "/rootfs", null, null,
                readiness, null, null, null, new IdleSpec(60L, "suspend"));
        return SandboxRecord.creating("s1", spec, new ActorIdentity("s1", "tests", "uid"), null, Operation.CREATE)
                .withState(SandboxState.RUNNING)
                .withRuntime(new VmRuntime("/run/s1/e1", 1, 1, "/run/s1/e1/api.sock", "/run/s1/e1/vsock.socket", null, null, List.of(), null,
                        null));
    }

    private final class ScriptedProbe implements GuestProbe {
        @Override
        public void awaitReady(Path vsockSocket, long port, Duration timeout) { }

        @Override
        public void setClock(Path vsockSocket, long port, Instant now) { }

        @Override
        public long activity(Path vsockSocket, long port) {
            asked.add(vsockSocket);
            if (silent) throw new IllegalStateException("probe on " + vsockSocket + " did not answer");
            return counter.get();
        }

        @Override
        public GuestProbeAnswer command(Path vsockSocket, long port, String command, Duration timeout) {
            throw new UnsupportedOperationException();
        }
    }
}
