package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.timing.FailPoints;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A virtiofsd start returns at its listen, so a share that dies after it fails the VMM's connection, not its start. The
 * bring-up's answer then names the share, how it ended and its log, not only the hypervisor's error; the sandbox is
 * left as a failed resume leaves it (SUSPENDED, nothing running) and a retry succeeds. The stand-in plays v54, which
 * retries a socket without a listener: here for 1 s instead of CHV's 60.
 */
class ShareFailureNamedTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.startedBy(root -> {
        Path chv = root.resolve("cloud-hypervisor");
        Files.writeString(chv, "#!/bin/sh\nATEOM_STANDIN_VHOST_USER_TIMEOUT=1 exec " + TestTools.standIn() + " \"$@\"\n");
        Files.setPosixFilePermissions(chv, PosixFilePermissions.fromString("rwxr-xr-x"));
        return new DaemonHarness(root, Map.of(ConfigOption.CLOUD_HYPERVISOR, chv.toString()));
    });

    @AfterEach
    void disarm() {
        FailPoints.disarmAll();
    }

    @Test
    void aShareThatDiesBeforeTheRestoreConnectsIsNamedInTheFailedResume() throws Exception {
        daemon.createOk(daemon.spec("sf-1", "sf-1"));
        assertThat(daemon.post("/v1/sandboxes/sf-1/suspend", "{}").status()).isEqualTo(200);
        long[] killed = {0};
        FailPoints.runOnce("resume.vmRestore", () -> {
            ProcessHandle durable = ProcessHandle.current().children()
                    .filter(child -> child.info().commandLine().orElse("").contains("--tag=ateDurable")
                            && child.info().commandLine().orElse("").contains("/sf-1/"))
                    .max(Comparator.comparing(child -> child.info().startInstant().orElseThrow()))
                    .orElseThrow();
            killed[0] = durable.pid();
            durable.destroyForcibly();
            durable.onExit().join();
        });

        var failed = daemon.post("/v1/sandboxes/sf-1/resume", "{}");

        assertThat(failed.status()).as(failed.body().toString()).isEqualTo(500);
        String detail = failed.body().path("detail").asText();
        assertThat(killed[0]).as("the hook ran").isNotZero();
        assertThat(detail).contains("ateDurable").contains("virtiofsd pid " + killed[0])
                .contains("killed by signal 9").contains("durable.log ends with")
                .contains("so the hypervisor's call failed").contains("vm.restore")
                // the other shares end when the failed VMM disconnects from them: a consequence, not named as a cause
                .doesNotContain("frontend disconnected");
        JsonNode sandbox = daemon.get("/v1/sandboxes/sf-1").body();
        assertThat(sandbox.path("state").asText()).isEqualTo("SUSPENDED");
        daemon.awaitPoolFull();
        assertThat(TestTools.leakedChildren()).as("processes after the failed resume").isEmpty();
        assertThat(TestTools.sockets(daemon.runDir().resolve("sf-1"))).as("sockets after the failed resume").isEmpty();

        assertThat(daemon.post("/v1/sandboxes/sf-1/resume", "{}").status()).as("a retry").isEqualTo(200);
        assertThat(daemon.delete("/v1/sandboxes/sf-1?deleteSnapshots=true").status()).isEqualTo(204);
    }
}
