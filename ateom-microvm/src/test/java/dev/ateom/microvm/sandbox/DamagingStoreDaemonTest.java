package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.remote.RemoteSnapshots;
import dev.ateom.store.ConditionalPutProxy;
import dev.ateom.store.S3ServerKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store that does not give back what is written to it (s3rver, which keeps any body, behind a front that appends a
 * streamed upload's framing to every body): the daemon finds it at start with its probe object, warns naming the
 * store and the endpoint option, answers every store request 502, and works locally as without a store.
 */
class DamagingStoreDaemonTest {
    private static final byte[] FRAMING = "\r\n0;chunk-signature=0123456789abcdef\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    @TempDir Path dir;

    @Test
    void aStoreThatDoesNotGiveBackWhatIsWrittenIsWarnedAboutAndAnswered502() throws Exception {
        try (StoreHosts store = StoreHosts.start(dir, "damaging", S3ServerKind.S3RVER, StoreHosts.Front.DIRECT);
             ConditionalPutProxy front = new ConditionalPutProxy(store.s3().endpoint())) {
            front.rewriteUploads((path, body) -> {
                byte[] framed = Arrays.copyOf(body, body.length + FRAMING.length);
                System.arraycopy(FRAMING, 0, framed, body.length, FRAMING.length);
                return framed;
            });
            Map<ConfigOption, String> flags = store.flags("host-d", true);
            flags.put(ConfigOption.SNAPSHOT_STORE_ENDPOINT, front.endpoint().toString());
            try (LoggedMessages warnings = LoggedMessages.of(RemoteSnapshots.class, Level.WARNING);
                 DaemonHarness host = new DaemonHarness(store.root("host-d"), flags)) {
                assertThat(warnings.messages()).as("warnings at start").anySatisfy(w -> assertThat(w)
                        .contains("s3://" + StoreHosts.BUCKET + "/damaging").contains("does not give back what is written to it")
                        .contains("chunk-signature").contains("snapshot-store-endpoint"));
                JsonNode described = host.get("/v1/store").body();
                assertThat(described.path("usable").asBoolean(true)).isFalse();
                assertThat(described.path("error").asText()).contains("does not give back what is written to it");

                var list = host.get("/v1/snapshots?remote=true");
                assertThat(list.status()).as(list.body().toString()).isEqualTo(502);
                assertThat(list.body().path("type").asText()).endsWith("snapshot-store-error");
                assertThat(list.body().path("detail").asText()).contains("snapshot-store-endpoint");

                // local work goes on; the suspend's push is not attempted against such a store
                String snapshotId = SnapshotStoreDaemonTest.createWriteAndSuspend(host, "local-1", "stays here");
                assertThat(host.get("/v1/snapshots/" + snapshotId).body().path("remote").path("state").asText()).isEqualTo("unknown");
                assertThat(store.list("snapshots/")).isEmpty();
                assertThat(host.post("/v1/snapshots/" + snapshotId + "/push", "").status()).isEqualTo(502);
                assertThat(host.delete("/v1/sandboxes/local-1?deleteSnapshots=true").status()).isEqualTo(204);
            }
        }
    }
}
