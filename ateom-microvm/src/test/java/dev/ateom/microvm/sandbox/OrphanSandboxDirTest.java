package dev.ateom.microvm.sandbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12, item 4 (daemon part): a directory under {@code sandboxes/} without a record (a delete that lost its
 * record, an unreadable one) is reported at start and in /metrics, and a new sandbox of that id never gets its data.
 */
class OrphanSandboxDirTest {
    @TempDir Path dir;

    @Test
    void anOrphanIsReportedAndItsIdRefusedUntilRemoved() throws Exception {
        Path orphan = Files.createDirectories(dir.resolve("state/sandboxes/ghost/durable/data"));
        Files.writeString(orphan.resolve("secret.txt"), "an earlier sandbox's data");
        try (DaemonHarness daemon = new DaemonHarness(dir, Map.of())) {
            assertThat(metrics(daemon)).contains("ateom_orphan_sandbox_dirs 1.0");
            assertThat(daemon.get("/v1/sandboxes").body().path("items")).isEmpty();

            var res = daemon.post("/v1/sandboxes", daemon.spec("ghost", "ghost"));
            assertThat(res.status()).as(res.body().toString()).isEqualTo(409);
            assertThat(res.body().path("detail").asText()).contains("earlier sandbox", "orphan");
            assertThat(daemon.get("/v1/sandboxes/ghost").status()).as("nothing registered").isEqualTo(404);
            assertThat(orphan.resolve("secret.txt")).as("the orphan is left for an operator").hasContent("an earlier sandbox's data");

            TreeRemoval.removeRecursively(dir.resolve("state/sandboxes/ghost"));
            assertThat(metrics(daemon)).contains("ateom_orphan_sandbox_dirs 0.0");
            var created = daemon.createOk(daemon.spec("ghost", "ghost"));
            assertThat(daemon.stateDir().resolve("sandboxes/ghost/durable/data/secret.txt")).doesNotExist();
            assertThat(created.body().path("sandbox").path("state").asText()).isEqualTo("RUNNING");
            assertThat(daemon.delete("/v1/sandboxes/ghost").status()).isEqualTo(204);
        }
    }

    @Test
    void anUnreadableRecordMakesItsDirAnOrphan() throws Exception {
        Path broken = Files.createDirectories(dir.resolve("state/sandboxes/broken"));
        Files.writeString(broken.resolve("sandbox.json"), "{ not json");
        try (DaemonHarness daemon = new DaemonHarness(dir, Map.of())) {
            assertThat(metrics(daemon)).contains("ateom_orphan_sandbox_dirs 1.0");
            assertThat(daemon.post("/v1/sandboxes", daemon.spec("broken", "broken")).status()).isEqualTo(409);
            assertThat(broken.resolve("sandbox.json")).hasContent("{ not json");
        }
    }

    private static String metrics(DaemonHarness daemon) throws Exception {
        var res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(daemon.uri("/metrics"))
                .header("Authorization", "Bearer " + daemon.token).build(), HttpResponse.BodyHandlers.ofString());
        return res.body();
    }
}
