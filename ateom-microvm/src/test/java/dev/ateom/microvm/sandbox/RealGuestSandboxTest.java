package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.chv.vsock.ProbeClient;
import dev.ateom.fixtures.guest.GuestCmdline;
import dev.ateom.fixtures.guest.GuestImage;
import dev.ateom.fixtures.wait.Eventually;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;
import java.util.Map;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The product end to end with a real guest: the daemon drives the CHV stand-in's {@code qemu} backend (each VM
 * a QEMU/TCG guest built from the VmConfig, saved and restored with QMP), real virtiofsd with find-paths
 * migration, the fixture guest's identity probe over hybrid vsock, readiness {@code probe}.
 */
class RealGuestSandboxTest {
    private static final Duration PROBE = Duration.ofSeconds(20);
    /**
     * The daemon launches "cloud-hypervisor" like the real one: a wrapper picks the stand-in's qemu backend. The second
     * clone of a snapshot takes what was made ahead for it ({@code --clone-ahead}).
     */
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.startedBy(dir -> RealGuest.daemon(dir, Map.of(ConfigOption.CLONE_AHEAD, "1")));
    static GuestImage guest;
    static Path secrets;

    @BeforeAll
    static void start() throws Exception {
        guest = GuestImage.ensureBuilt();
        secrets = Files.createDirectories(DaemonHarness.hostDirectoryRoot(daemon.root()).resolve("secrets"));
        Files.writeString(secrets.resolve("token"), "token-v1");
    }

    @Test
    void identityDataSecretsAndClockAcrossSuspendResumeAndClone() throws Exception {
        JsonNode created = daemon.createOk(guestSpec("guest-a", "guest-a")).body();
        ProbeClient probe = probe(created.path("sandbox"));
        assertThat(probe.whoami().text()).isEqualTo("guest-a");
        assertThat(probe.cat("/etc/ate-fixture").text()).isEqualTo(GuestImage.FIXTURE_FILE_CONTENT);
        probe.write("/data/data/hello.txt", "persist me");
        assertThat(daemon.stateDir().resolve("sandboxes/guest-a/durable/data/hello.txt")).hasContent("persist me");

        // a secret rotated on the host reaches the running guest by path; a descriptor held across the rotation
        // keeps its old content while the VM runs (invariant 4) ...
        int held = probe.open("/run/ate/secrets/token");
        assertThat(probe.pread(held).text()).isEqualTo("token-v1");
        Files.writeString(secrets.resolve("token.tmp"), "token-v2");
        Files.move(secrets.resolve("token.tmp"), secrets.resolve("token"), StandardCopyOption.ATOMIC_MOVE);
        awaitGuestFile(probe, "/run/ate/secrets/token", "token-v2");
        assertThat(probe.pread(held).text()).as("held descriptor while running").isEqualTo("token-v1");

        long activity = probe.activity();
        var suspended = daemon.post("/v1/sandboxes/guest-a/suspend", "{}");
        assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
        String snapshot = suspended.body().path("snapshotId").asText();
        var resumed = daemon.post("/v1/sandboxes/guest-a/resume", "{}");
        assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
        assertThat(resumed.body().path("timingsMs").has("clock")).isTrue();

        probe = probe(resumed.body().path("sandbox"));
        // the activity counter the idle timeout polls: kept in the restored memory, and the daemon's own commands
        // (readiness ping, settime after the restore, activity) do not move it; any other command does
        assertThat(probe.activity()).as("activity after the resume's ping and settime").isEqualTo(activity);
        probe.ping();
        assertThat(probe.activity()).isEqualTo(activity);
        assertThat(probe.whoami().text()).as("through the descriptor held since boot").isEqualTo("guest-a");
        assertThat(probe.activity()).as("whoami is use of the guest").isEqualTo(activity + 1);
        assertThat(probe.cat("/data/data/hello.txt").text()).isEqualTo("persist me");
        assertThat(probe.cat("/run/ate/secrets/token").text()).isEqualTo("token-v2");
        // ... and the newest content after a suspend/resume, not EIO
        assertThat(probe.pread(held).text()).as("held descriptor after resume").isEqualTo("token-v2");
        assertThat(Duration.between(probe.time(), Instant.now()).abs()).as("guest clock set after resume").isLessThan(Duration.ofSeconds(10));

        JsonNode cloned = daemon.createOk(DaemonApi.cloneRequest(snapshot, "guest-b")).body();
        ProbeClient cloneProbe = probe(cloned.path("sandbox"));
        assertThat(cloneProbe.whoami().text()).as("the clone's own name through its held descriptor").isEqualTo("guest-b");
        assertThat(cloneProbe.cat("/data/data/hello.txt").text()).isEqualTo("persist me");
        assertThat(probe.whoami().text()).as("the original is untouched").isEqualTo("guest-a");

        // the next clone runs on the durable dir and virtiofsd made ahead for it, moved into its own dirs
        awaitMadeAhead();
        JsonNode madeAhead = daemon.createOk(DaemonApi.cloneRequest(snapshot, "guest-c")).body();
        assertThat(madeAhead.path("timingsMs").has("durable")).as("%s", madeAhead.path("timingsMs")).isFalse();
        ProbeClient thirdProbe = probe(madeAhead.path("sandbox"));
        assertThat(thirdProbe.whoami().text()).as("its own identity").isEqualTo("guest-c");
        assertThat(thirdProbe.cat("/data/data/hello.txt").text()).isEqualTo("persist me");
        thirdProbe.write("/data/data/third.txt", "written by guest-c");
        assertThat(daemon.stateDir().resolve("sandboxes/guest-c/durable/data/third.txt")).hasContent("written by guest-c");
        assertThat(daemon.stateDir().resolve("sandboxes/guest-b/durable/data/third.txt")).doesNotExist();
        assertThat(daemon.delete("/v1/sandboxes/guest-c").status()).isEqualTo(204);

        assertThat(daemon.delete("/v1/sandboxes/guest-b").status()).isEqualTo(204);
        assertThat(daemon.delete("/v1/sandboxes/guest-a?deleteSnapshots=true").status()).isEqualTo(204);
    }

    /** A clone made ahead: its dirs under {@code <state>/clones-ahead}, its three virtiofsd listening; bounded. */
    private static void awaitMadeAhead() {
        Eventually.until(Duration.ofSeconds(60), () -> {
            try (var made = Files.list(daemon.stateDir().resolve("clones-ahead"))) {
                for (Path dir : made.toList()) {
                    if (TestTools.sockets(daemon.runDir().resolve(".clones-ahead").resolve(dir.getFileName())).size() == 3) return true;
                }
                return false;
            } catch (NoSuchFileException e) {
                return false;
            }
        }, "a clone made ahead with its three virtiofsd listening");
    }

    private static ObjectNode guestSpec(String id, String name) {
        ObjectNode spec = ApiJson.mapper().createObjectNode().put("id", id);
        spec.putObject("identity").put("name", name).put("namespace", "tests");
        spec.put("vcpus", 1).put("memoryMib", 256)
                .put("kernel", guest.vmlinux().toString()).put("initramfs", guest.initramfs().toString())
                .put("cmdline", GuestCmdline.defaults().render()).put("rootfs", guest.rootfs().toString());
        spec.putArray("durableDirs").add("data");
        ArrayNode volumes = spec.putObject("systemInfo").putArray("volumes");
        ObjectNode identity = volumes.addObject().put("name", "identity");
        identity.putArray("sources").addObject().putObject("actorMetadata").putArray("items")
                .add(ApiJson.mapper().createObjectNode().put("field", "name").put("path", "name"));
        ObjectNode secretVolume = volumes.addObject().put("name", "secrets").put("defaultMode", "0440");
        secretVolume.putArray("sources").addObject().putObject("hostDirectory").put("path", secrets.toString());
        spec.putObject("readiness").put("type", "probe").put("port", GuestCmdline.defaults().probePort()).put("timeoutSeconds", 180);
        return spec;
    }

    private static ProbeClient probe(JsonNode sandbox) {
        return new ProbeClient(Path.of(sandbox.path("runtime").path("vsockSocket").asText()),
                GuestCmdline.defaults().probePort(), PROBE);
    }

    private static void awaitGuestFile(ProbeClient probe, String path, String expected) {
        Eventually.until(Duration.ofSeconds(15), () -> expected.equals(probe.cat(path).text()),
                "the guest to read '" + expected + "' from " + path, () -> "it reads '" + probe.cat(path).text() + "'");
    }
}
