package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A clean daemon stop suspends running sandboxes (their processes die with the daemon), and a new daemon resumes them. */
class DaemonStopTest {
    @TempDir Path dir;

    @Test
    void runningSandboxesAreSuspendedAtStopAndResumableAfterRestart() throws Exception {
        String snapshot;
        try (DaemonHarness first = new DaemonHarness(dir, Map.of())) {
            first.createOk(first.spec("survivor", "survivor"));
            Files.writeString(first.stateDir().resolve("sandboxes/survivor/durable/data/state.txt"), "before stop");
        }
        assertThat(TestTools.leakedChildren()).as("no VM process outlives the daemon").isEmpty();

        try (DaemonHarness second = new DaemonHarness(dir, Map.of())) {
            JsonNode sandbox = second.get("/v1/sandboxes/survivor").body();
            assertThat(sandbox.path("state").asText()).isEqualTo("SUSPENDED");
            snapshot = sandbox.path("latestSnapshotId").asText();
            assertThat(second.get("/v1/snapshots/" + snapshot + "?verify=true").body().path("verification").path("problems")).isEmpty();
            var resumed = second.post("/v1/sandboxes/survivor/resume", "{}");
            assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
            assertThat(Files.readString(second.stateDir().resolve("sandboxes/survivor/durable/data/state.txt"))).isEqualTo("before stop");
            assertThat(second.delete("/v1/sandboxes/survivor?deleteSnapshots=true").status()).isEqualTo(204);
        }
        assertThat(TestTools.leakedChildren()).isEmpty();
    }
}
