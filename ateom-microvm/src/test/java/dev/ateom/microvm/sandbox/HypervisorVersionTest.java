package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.microvm.config.ConfigOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon asks its cloud-hypervisor's version at start: a supported one (v53 here, the stand-in playing it) runs
 * sandboxes and shows in {@code GET /v1/host}; one outside the supported range is refused, create answering 503 with
 * the version, the range and how to point the daemon elsewhere, and nothing started.
 */
class HypervisorVersionTest {
    @TempDir
    Path dir;

    @Test
    void v53IsSupportedAndShown() throws Exception {
        Path chv = wrapper("v53", "ATEOM_STANDIN_CHV_VERSION=53 exec " + TestTools.standIn() + " \"$@\"");
        try (DaemonHarness daemon = new DaemonHarness(Files.createDirectories(dir.resolve("d53")), Map.of(ConfigOption.CLOUD_HYPERVISOR, chv.toString(),
                ConfigOption.VMM_POOL, "0"))) {
            JsonNode host = daemon.get("/v1/host").body().path("cloudHypervisor");
            assertThat(host.path("version").asText()).isEqualTo("53.0.0");
            assertThat(host.path("supported").asBoolean()).isTrue();
            daemon.createOk(daemon.spec("v53-a", "v53-a"));
            assertThat(daemon.delete("/v1/sandboxes/v53-a").status()).isEqualTo(204);
        }
        assertThat(TestTools.leakedChildren()).isEmpty();
    }

    @Test
    void aVersionOutsideTheRangeIsRefusedWithTheVersionTheRangeAndTheOption() throws Exception {
        Path chv = wrapper("v52", "if [ \"$1\" = --version ]; then echo 'cloud-hypervisor v52.0.0'; exit 0; fi\n"
                + "exec " + TestTools.standIn() + " \"$@\"");
        try (DaemonHarness daemon = new DaemonHarness(Files.createDirectories(dir.resolve("d52")), Map.of(ConfigOption.CLOUD_HYPERVISOR, chv.toString()))) {
            var create = daemon.post("/v1/sandboxes", daemon.spec("v52-a", "v52-a"));
            assertThat(create.status()).as(create.body().toString()).isEqualTo(503);
            assertThat(create.body().path("type").asText()).endsWith("host-tools-unavailable");
            assertThat(create.body().path("detail").asText()).contains("is v52.0.0").contains("v53 to v54").contains("--cloud-hypervisor");
            JsonNode host = daemon.get("/v1/host").body().path("cloudHypervisor");
            assertThat(host.path("supported").asBoolean()).isFalse();
            assertThat(host.path("problem").asText()).contains("v52.0.0");
            assertThat(daemon.get("/v1/sandboxes").body().path("items")).as("nothing created").isEmpty();
        }
        assertThat(TestTools.leakedChildren()).as("no pool member of a refused binary").isEmpty();
    }

    private Path wrapper(String name, String body) throws Exception {
        Path script = Files.createDirectories(dir.resolve("bin")).resolve(name);
        Files.writeString(script, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }
}
