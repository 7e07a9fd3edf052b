package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static dev.ateom.microvm.sandbox.IdleTimeoutTest.awaitState;
import static dev.ateom.microvm.sandbox.IdleTimeoutTest.idle;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Idle deadlines are absolute times in the sandbox record, so a daemon restart between a create and its deadline
 * keeps it: the adopted sandbox is acted on at the deadline its record holds, and a suspended sandbox's timer does
 * not run while it is suspended, across the restart too. In-process daemons on one state dir (CHV stand-in,
 * {@code none} backend) whose VMs outlive them.
 */
class IdleTimeoutRestartTest {
    private static final Map<ConfigOption, String> FLAGS = Map.of(ConfigOption.IDLE_MINIMUM_SECONDS, "1",
            ConfigOption.CHILDREN_DIE_WITH_DAEMON, "false");

    @TempDir Path dir;
    private DaemonHarness second;

    @AfterEach
    void stop() {
        if (second != null) second.close();
        assertThat(TestTools.leakedChildren()).as("processes left behind").isEmpty();
    }

    @Test
    void aRestartKeepsTheDeadlineAndASuspendedSandboxDoesNotCount() throws Exception {
        Instant deadline;
        try (DaemonHarness first = new DaemonHarness(dir, FLAGS)) {
            first.createOk(idle(first.spec("parked", "parked"), 4, "delete"));
            assertThat(first.post("/v1/sandboxes/parked/suspend", "{}").status()).isEqualTo(200);
            deadline = Instant.parse(first.createOk(idle(first.spec("kept", "kept"), 4, "suspend")).body()
                    .path("sandbox").path("idleDeadline").asText());
        }
        assertThat(Instant.parse(recordOnDisk("kept").path("idleDeadline").asText())).as("the absolute deadline in sandbox.json")
                .isEqualTo(deadline);
        assertThat(recordOnDisk("parked").has("idleDeadline")).as("a suspended sandbox has none").isFalse();

        // the deadline may have passed while no daemon ran: then it is acted on at the new daemon's first look
        second = new DaemonHarness(dir, FLAGS);
        awaitState(second, "kept", "SUSPENDED");
        List<JsonNode> events = SandboxEvents.upTo(second, "kept", e -> SandboxEvents.describe(e).equals("operation suspend true"));
        assertThat(events.stream().map(SandboxEvents::describe)).containsSubsequence("idle suspend", "operation suspend true");
        JsonNode idleEvent = events.stream().filter(e -> e.path("type").asText().equals("idle")).findFirst().orElseThrow();
        assertThat(idleEvent.path("detail").asText()).as("acted on at the recorded deadline, not one counted from the restart")
                .contains("unused since " + deadline.minusSeconds(4));

        // created before "kept", with the same timeout and the delete action, but suspended all along: still there
        assertThat(second.get("/v1/sandboxes/parked").body().path("state").asText()).isEqualTo("SUSPENDED");
        Instant resumedAt = Instant.now();
        JsonNode resumed = second.post("/v1/sandboxes/parked/resume", "{}").body().path("sandbox");
        assertThat(Instant.parse(resumed.path("idleDeadline").asText())).as("counted from the resume")
                .isAfterOrEqualTo(resumedAt.plusSeconds(4));
        awaitState(second, "parked", null);
        assertThat(second.delete("/v1/sandboxes/kept?deleteSnapshots=true").status()).isEqualTo(204);
    }

    private JsonNode recordOnDisk(String id) throws Exception {
        return ApiJson.mapper().readTree(dir.resolve("state/sandboxes").resolve(id).resolve("sandbox.json").toFile());
    }
}
