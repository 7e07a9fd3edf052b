package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.microvm.config.ConfigOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A host whose /dev/kvm is kvm_pvm, played by the CHV stand-in ({@code ATEOM_STANDIN_HOST_KVM=kvm_pvm}: vm.snapshot
 * answers exactly what a real v53 answered there): suspend and checkpoint fail with a 500 that names the cause, the
 * sandbox stays RUNNING on the same VM, and {@code GET /v1/host} shows this host's facts.
 */
class PvmHostSnapshotTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.startedBy(root -> {
        Path chv = root.resolve("cloud-hypervisor");
        Files.writeString(chv, "#!/bin/sh\nATEOM_STANDIN_HOST_KVM=kvm_pvm exec " + TestTools.standIn() + " \"$@\"\n");
        Files.setPosixFilePermissions(chv, PosixFilePermissions.fromString("rwxr-xr-x"));
        return new DaemonHarness(root, Map.of(ConfigOption.CLOUD_HYPERVISOR, chv.toString(), ConfigOption.VMM_POOL, "0"));
    });

    @Test
    void suspendAndCheckpointFailNamingTheCauseAndTheSandboxKeepsRunning() throws Exception {
        JsonNode runtime = daemon.createOk(daemon.spec("pvm-1", "pvm-1")).body().path("sandbox").path("runtime");

        var suspend = daemon.post("/v1/sandboxes/pvm-1/suspend", "{}");
        assertThat(suspend.status()).as(suspend.body().toString()).isEqualTo(500);
        assertThat(suspend.contentType()).isEqualTo("application/problem+json");
        assertThat(suspend.body().path("type").asText()).endsWith("suspend-failed");
        assertThat(suspend.body().path("state").asText()).isEqualTo("RUNNING");
        assertThat(suspend.body().path("detail").asText())
                .contains("GetNestedState(Invalid argument (os error 22)")
                .contains("KVM_GET_NESTED_STATE").contains("kvm_pvm").contains("the sandbox is still running");

        var checkpoint = daemon.post("/v1/sandboxes/pvm-1/checkpoint", "{}");
        assertThat(checkpoint.status()).as(checkpoint.body().toString()).isEqualTo(500);
        assertThat(checkpoint.body().path("detail").asText()).contains("KVM_GET_NESTED_STATE");

        JsonNode sandbox = daemon.get("/v1/sandboxes/pvm-1").body();
        assertThat(sandbox.path("state").asText()).isEqualTo("RUNNING");
        assertThat(sandbox.path("runtime")).as("the same VM, rolled back to running").isEqualTo(runtime);
        assertThat(daemon.get("/v1/snapshots?sandbox=pvm-1").body().path("items")).as("no snapshot half-made").isEmpty();
        assertThat(daemon.delete("/v1/sandboxes/pvm-1").status()).isEqualTo(204);
    }

    @Test
    void theHostReportShowsThisHostsFactsAndTheHypervisor() throws Exception {
        var host = daemon.get("/v1/host");
        assertThat(host.status()).as(host.body().toString()).isEqualTo(200);
        JsonNode body = host.body();
        assertThat(body.path("kvm").path("module").asText()).isIn("kvm_intel", "kvm_amd", "kvm_pvm", "none");
        assertThat(body.path("kvm").path("device").asBoolean()).isEqualTo(Files.exists(Path.of("/dev/kvm")));
        assertThat(body.path("cgroup").path("version").asText()).isIn("v1", "v2", "hybrid");
        assertThat(body.path("nftables").asBoolean()).as("scripts/setup.sh installs nftables").isTrue();
        assertThat(body.has("landlockAbi")).isTrue();
        JsonNode chv = body.path("cloudHypervisor");
        assertThat(chv.path("version").asText()).as("the stand-in plays v54 by default").isEqualTo("54.0.0");
        assertThat(chv.path("supported").asBoolean()).isTrue();
        assertThat(chv.path("supportedVersions").asText()).isEqualTo("v53 to v54");
        assertThat(body.path("warnings").isArray()).isTrue();

        var anonymous = daemon.send(HttpRequest.newBuilder(daemon.uri("/v1/host")).GET(), false);
        assertThat(anonymous.status()).as("token-protected").isEqualTo(401);
    }
}
