package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A running sandbox whose hostDirectory source cannot be applied (a file replaced by a FIFO, which the reader
 * refuses) gets one {@code sync-error} event naming the volume and the reason, however often the sync retries.
 * In-process daemon, CHV stand-in, {@code none} backend.
 */
class SyncErrorEventTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of());

    @Test
    void aSourceChangeTheSyncCannotApplyIsOneSyncErrorEvent() throws Exception {
        Path source = Files.createDirectories(DaemonHarness.hostDirectoryRoot(daemon.root()).resolve("secrets"));
        Files.writeString(source.resolve("token"), "one");
        ObjectNode spec = daemon.spec("sync-err", "sync-err");
        ObjectNode volume = ((ArrayNode) spec.at("/systemInfo/volumes")).addObject().put("name", "secrets");
        volume.putArray("sources").addObject().putObject("hostDirectory").put("path", source.toString());
        daemon.createOk(spec);

        Files.delete(source.resolve("token"));
        Process mkfifo = new ProcessBuilder("mkfifo", source.resolve("token").toString()).inheritIO().start();
        assertThat(mkfifo.waitFor()).isZero();
        JsonNode event = SandboxEvents.upTo(daemon, "sync-err", e -> e.path("type").asText().equals("sync-error")).getLast();
        assertThat(event.path("detail").asText()).contains("secrets").contains("token");

        // the sync keeps failing the same way (retried every second, and at each change of the directory): no new event
        double failures = syncErrors();
        Files.writeString(source.resolve("other"), "a change that wakes the sync");
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (syncErrors() < failures + 2) {
            assertThat(System.nanoTime()).as("the sync to fail again").isLessThan(deadline);
            Thread.sleep(50);
        }
        assertThat(daemon.post("/v1/sandboxes/sync-err/suspend", "{}").status()).isEqualTo(200);
        List<JsonNode> events = SandboxEvents.upTo(daemon, "sync-err", e -> SandboxEvents.describe(e).equals("operation suspend true"));
        assertThat(events.stream().filter(e -> e.path("type").asText().equals("sync-error"))).hasSize(1);
        assertThat(daemon.delete("/v1/sandboxes/sync-err?deleteSnapshots=true").status()).isEqualTo(204);
    }

    private static double syncErrors() throws Exception {
        return daemon.metrics().lines().filter(l -> l.startsWith("ateom_systeminfo_sync_errors_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
