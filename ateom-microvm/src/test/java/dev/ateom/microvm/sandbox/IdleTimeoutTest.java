package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.config.ConfigOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The spec's idle timeout against an in-process daemon (CHV stand-in, {@code none} backend, {@code --idle-minimum-seconds 1}):
 * an untouched sandbox is suspended or deleted with an {@code idle} event first, a suspended one's timer starts again
 * at resume, and neither API operations nor the activity its guest reports (a fake probe: the none backend has no
 * guest) let it be acted on while they go on.
 */
class IdleTimeoutTest {
    static final FakeGuestProbe probe = new FakeGuestProbe();
    @RegisterExtension
    static final DaemonExtension daemon =
            DaemonExtension.startedBy(root -> new DaemonHarness(root, Map.of(ConfigOption.IDLE_MINIMUM_SECONDS, "1"), probe));

    /**
     * The timeout of the sandboxes kept in use: longer than the tick (0.5 s), than the guest activity poll (1 s, the
     * daemon's shortest) and than the gaps between the uses below, so only a use that does not count lets it run out.
     */
    static final int IN_USE_AFTER_SECONDS = 2;

    @Test
    void anUntouchedSandboxIsSuspendedAfterAnIdleEventAndItsTimerStartsAgainAtResume() throws Exception {
        Instant before = Instant.now();
        JsonNode created = daemon.createOk(idle(daemon.spec("idle-s", "idle-s"), 1, "suspend")).body().path("sandbox");
        Instant deadline = Instant.parse(created.path("idleDeadline").asText());
        assertThat(deadline).isAfterOrEqualTo(before.plusSeconds(1));

        awaitState(daemon, "idle-s", "SUSPENDED");
        List<JsonNode> events = SandboxEvents.upTo(daemon, "idle-s", e -> SandboxEvents.describe(e).equals("operation suspend true"));
        assertThat(events.stream().map(SandboxEvents::describe)).containsSubsequence(
                "operation create true", "idle suspend", "state RUNNING->SUSPENDING suspend", "state SUSPENDING->SUSPENDED suspend",
                "operation suspend true");
        JsonNode idleEvent = events.stream().filter(e -> e.path("type").asText().equals("idle")).findFirst().orElseThrow();
        assertThat(idleEvent.path("detail").asText()).contains("idle.afterSeconds 1").contains("suspend");
        assertThat(daemon.get("/v1/sandboxes/idle-s").body().has("idleDeadline")).as("a suspended sandbox does not count").isFalse();

        Instant resumedAt = Instant.now();
        JsonNode resumed = daemon.post("/v1/sandboxes/idle-s/resume", "{}").body().path("sandbox");
        assertThat(Instant.parse(resumed.path("idleDeadline").asText())).isAfterOrEqualTo(resumedAt.plusSeconds(1));
        awaitState(daemon, "idle-s", "SUSPENDED");
        assertThat(daemon.delete("/v1/sandboxes/idle-s?deleteSnapshots=true").status()).isEqualTo(204);
    }

    @Test
    void withDeleteAnUntouchedSandboxIsDeleted() throws Exception {
        daemon.createOk(idle(daemon.spec("idle-d", "idle-d"), 1, "delete"));
        awaitState(daemon, "idle-d", null);
        List<JsonNode> events = SandboxEvents.upTo(daemon, "idle-d", e -> e.path("type").asText().equals("deleted"));
        assertThat(events.stream().map(SandboxEvents::describe)).containsSubsequence(
                "operation create true", "idle delete", "state RUNNING->DELETING delete", "operation delete true", "deleted delete");
        assertThat(daemon.stateDir().resolve("sandboxes/idle-d")).doesNotExist();
    }

    /** Checkpoints every quarter second until 2 s past its first deadline: never acted on; then left alone, it is suspended. */
    @Test
    void aSandboxUsedThroughTheApiIsNotActedOn() throws Exception {
        Instant firstDeadline = deadlineOf(daemon.createOk(idle(daemon.spec("idle-api", "idle-api"), IN_USE_AFTER_SECONDS, "suspend")));
        int checkpoints = 0;
        while (Instant.now().isBefore(firstDeadline.plusSeconds(2))) {
            var checkpoint = daemon.post("/v1/sandboxes/idle-api/checkpoint", "{}");
            assertThat(checkpoint.status()).as("checkpoint %d: %s", checkpoints, checkpoint.body()).isEqualTo(200);
            checkpoints++;
            Thread.sleep(250);
        }
        List<JsonNode> events = SandboxEvents.upTo(daemon, "idle-api", countOf("operation checkpoint true", checkpoints));
        assertThat(events.stream().map(SandboxEvents::describe)).doesNotContain("idle suspend");
        awaitState(daemon, "idle-api", "SUSPENDED");
        assertThat(daemon.delete("/v1/sandboxes/idle-api?deleteSnapshots=true").status()).isEqualTo(204);
    }

    /** The guest's activity counter changes every 200 ms until 2 s past the first deadline: never acted on; then it is. */
    @Test
    void aSandboxWhoseGuestReportsActivityIsNotActedOn() throws Exception {
        ObjectNode spec = idle(daemon.spec("idle-guest", "idle-guest"), IN_USE_AFTER_SECONDS, "suspend");
        spec.putObject("readiness").put("type", "probe").put("port", 1024);
        Instant firstDeadline = deadlineOf(daemon.createOk(spec));
        long pollsBefore = probe.polls.get();
        while (Instant.now().isBefore(firstDeadline.plusSeconds(2))) {
            probe.counter.incrementAndGet();
            Thread.sleep(200);
        }
        assertThat(probe.polls.get()).as("the daemon polled the guest's activity").isGreaterThan(pollsBefore);
        assertThat(daemon.get("/v1/sandboxes/idle-guest").body().path("state").asText()).isEqualTo("RUNNING");
        awaitState(daemon, "idle-guest", "SUSPENDED");
        List<JsonNode> events = SandboxEvents.upTo(daemon, "idle-guest", e -> SandboxEvents.describe(e).equals("operation suspend true"));
        assertThat(events.stream().map(SandboxEvents::describe)).containsSubsequence("operation create true", "idle suspend",
                "operation suspend true");
        assertThat(daemon.delete("/v1/sandboxes/idle-guest?deleteSnapshots=true").status()).isEqualTo(204);
    }

    static ObjectNode idle(ObjectNode spec, int afterSeconds, String action) {
        spec.putObject("idle").put("afterSeconds", afterSeconds).put("action", action);
        return spec;
    }

    private static Instant deadlineOf(DaemonHarness.Response created) {
        return Instant.parse(created.body().path("sandbox").path("idleDeadline").asText());
    }

    /** Waits (up to 30 s) until the sandbox is in {@code state}; null: until it is gone. */
    static void awaitState(DaemonApi daemon, String id, String state) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            var res = daemon.get("/v1/sandboxes/" + id);
            String now = res.status() == 404 ? null : res.body().path("state").asText();
            if (state == null ? now == null : state.equals(now)) return;
            assertThat(System.nanoTime()).as("%s to become %s, is %s", id, state, now).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static Predicate<JsonNode> countOf(String description, int n) {
        int[] seen = {0};
        return e -> SandboxEvents.describe(e).equals(description) && ++seen[0] == n;
    }

    /** The none backend's guests have no probe: this one answers readiness at once and reports a counter the test moves. */
    static final class FakeGuestProbe implements GuestProbe {
        final AtomicLong counter = new AtomicLong();
        final AtomicLong polls = new AtomicLong();

        @Override
        public void awaitReady(Path vsockSocket, long port, Duration timeout) {
            assertThat(Files.exists(vsockSocket)).as("the VM's vsock socket").isTrue();
        }

        @Override
        public void setClock(Path vsockSocket, long port, Instant now) { }

        @Override
        public long activity(Path vsockSocket, long port) {
            polls.incrementAndGet();
            return counter.get();
        }

        @Override
        public GuestProbeAnswer command(Path vsockSocket, long port, String command, Duration timeout) {
            return new GuestProbeAnswer.Silent(false, "the fake probe takes no commands");
        }
    }
}
