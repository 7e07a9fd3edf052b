package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.chv.vsock.ProbeClient;
import dev.ateom.fixtures.guest.GuestCmdline;
import dev.ateom.fixtures.guest.GuestImage;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;

import static dev.ateom.microvm.sandbox.SnapshotStoreDaemonTest.awaitPushed;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real guest moved between two hosts through the snapshot store: two daemons on the CHV stand-in's {@code qemu}
 * backend (QEMU/TCG guests, real virtiofsd), s3proxy behind the conditional-put proxy ({@link StoreHosts.Front#LEASE_PROXY}) so leases are enforced.
 * Host A boots the guest, which writes durable data and holds descriptors of its identity files; A suspends and
 * pushes; host B adopts it (restores A's memory image, no boot) and must present the same identity through those
 * descriptors, the durable data, and secrets read from B's sources at adopt time. Both hosts run on this one machine,
 * so "B's source" is the same host path with a value changed after A suspended.
 */
@Tag("guest")
class RealGuestAdoptTest {
    private static final Duration PROBE = Duration.ofSeconds(20);

    @TempDir static Path dir;
    static GuestImage guest;
    static Path secrets;
    static StoreHosts store;
    static DaemonHarness hostA;
    static DaemonHarness hostB;

    @BeforeAll
    static void start() throws Exception {
        guest = GuestImage.ensureBuilt();
        store = StoreHosts.start(dir, "real-guest", StoreHosts.Front.LEASE_PROXY);
        Path chv = dir.resolve("cloud-hypervisor");
        Files.writeString(chv, "#!/bin/sh\nATEOM_STANDIN_BACKEND=qemu exec " + TestTools.standIn() + " \"$@\"\n");
        Files.setPosixFilePermissions(chv, PosixFilePermissions.fromString("rwxr-xr-x"));
        secrets = Files.createDirectories(DaemonHarness.hostDirectoryRoot(store.root("host-a")).resolve("secrets"));
        Files.writeString(secrets.resolve("token"), "token-of-host-a");
        hostA = store.host("host-a", flags(chv, "host-a", true));
        hostB = store.host("host-b", flags(chv, "host-b", false));
    }

    @AfterAll
    static void stop() {
        if (store != null) store.close();
    }

    /** Both hosts allow the same guest image and secret source paths, as hosts of one fleet would. */
    private static Map<ConfigOption, String> flags(Path chv, String hostId, boolean pushOnSuspend) {
        Map<ConfigOption, String> flags = store.flags(hostId, pushOnSuspend);
        flags.put(ConfigOption.CLOUD_HYPERVISOR, chv.toString());
        flags.put(ConfigOption.IMAGE_ROOTS, String.join(",", guest.vmlinux().getParent().toString(),
                guest.initramfs().getParent().toString(), guest.rootfs().toString()));
        flags.put(ConfigOption.HOST_DIRECTORY_ROOTS, secrets.getParent().toString());
        flags.put(ConfigOption.VMM_POOL, "0"); // no idle stand-ins beside two real guests on one machine
        return flags;
    }

    @Test
    void aGuestSuspendedOnHostAIsAdoptedOnHostBWithItsIdentityDataAndBsSecrets() throws Exception {
        JsonNode created = hostA.createOk(guestSpec("mover", "mover")).body().path("sandbox");
        String uid = created.path("identity").path("uid").asText();
        ProbeClient onA = probe(created);
        assertThat(onA.whoami().text()).isEqualTo("mover");
        int heldUid = onA.open("/run/ate/identity/uid");
        assertThat(onA.pread(heldUid).text()).isEqualTo(uid);
        onA.write("/data/data/journal.txt", "written by the guest on host A");
        assertThat(onA.cat("/run/ate/secrets/token").text()).isEqualTo("token-of-host-a");

        var suspended = hostA.post("/v1/sandboxes/mover/suspend", "{}");
        assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
        String snapshotId = suspended.body().path("snapshotId").asText();
        awaitPushed(hostA, snapshotId);
        store.awaitNoLease("mover"); // A held it while the guest ran there; its suspend gives it back after the answer
        // B's source holds another value than A's did: an adopt regenerates secrets, it never carries A's over
        Files.writeString(secrets.resolve("token.tmp"), "token-of-host-b");
        Files.move(secrets.resolve("token.tmp"), secrets.resolve("token"), StandardCopyOption.ATOMIC_MOVE);

        var adopted = hostB.post("/v1/sandboxes", ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshotId).put("adopt", true));
        assertThat(adopted.status()).as(adopted.body().toString()).isEqualTo(201);
        JsonNode onBRecord = adopted.body().path("sandbox");
        assertThat(onBRecord.path("id").asText()).isEqualTo("mover");
        assertThat(onBRecord.path("state").asText()).isEqualTo("RUNNING");
        assertThat(onBRecord.path("identity").path("uid").asText()).isEqualTo(uid);
        assertThat(hostB.stateDir().resolve("snapshots").resolve(snapshotId).resolve("manifest.json")).as("pulled onto B").exists();
        ProbeClient onB = probe(onBRecord);
        assertThat(onB.whoami().text()).as("name through the descriptor held since boot on A").isEqualTo("mover");
        assertThat(onB.pread(heldUid).text()).as("uid through a descriptor opened on A").isEqualTo(uid);
        assertThat(onB.cat("/data/data/journal.txt").text()).isEqualTo("written by the guest on host A");
        assertThat(onB.cat("/run/ate/secrets/token").text()).as("secret from B's source").isEqualTo("token-of-host-b");
        assertThat(hostB.stateDir().resolve("sandboxes/mover/durable/data/journal.txt")).hasContent("written by the guest on host A");

        // B holds the lease: A can no longer resume its copy, and says who holds it
        var resumeOnA = hostA.post("/v1/sandboxes/mover/resume", "{}");
        assertThat(resumeOnA.status()).as(resumeOnA.body().toString()).isEqualTo(409);
        assertThat(resumeOnA.body().path("type").asText()).endsWith("lease-held");
        assertThat(resumeOnA.body().path("detail").asText()).contains("host-b");
        assertThat(hostA.get("/v1/sandboxes/mover").body().path("state").asText()).isEqualTo("SUSPENDED");

        assertThat(hostB.delete("/v1/sandboxes/mover?deleteSnapshots=true").status()).isEqualTo(204);
        assertThat(store.storedObject("leases/mover")).as("lease released").doesNotExist();
        assertThat(hostA.delete("/v1/sandboxes/mover?deleteSnapshots=true").status()).isEqualTo(204);
    }

    private static ObjectNode guestSpec(String id, String name) {
        ObjectNode spec = ApiJson.mapper().createObjectNode().put("id", id);
        spec.putObject("identity").put("name", name).put("namespace", "tests");
        spec.put("vcpus", 1).put("memoryMib", 256)
                .put("kernel", guest.vmlinux().toString()).put("initramfs", guest.initramfs().toString())
                .put("cmdline", GuestCmdline.defaults().render()).put("rootfs", guest.rootfs().toString());
        spec.putArray("durableDirs").add("data");
        ArrayNode volumes = spec.putObject("systemInfo").putArray("volumes");
        volumes.addObject().put("name", "identity").putArray("sources").addObject().putObject("actorMetadata").putArray("items")
                .add(ApiJson.mapper().createObjectNode().put("field", "name").put("path", "name"))
                .add(ApiJson.mapper().createObjectNode().put("field", "uid").put("path", "uid"));
        volumes.addObject().put("name", "secrets").put("defaultMode", "0440")
                .putArray("sources").addObject().putObject("hostDirectory").put("path", secrets.toString());
        spec.putObject("readiness").put("type", "probe").put("port", GuestCmdline.defaults().probePort()).put("timeoutSeconds", 180);
        return spec;
    }

    private static ProbeClient probe(JsonNode sandbox) {
        return new ProbeClient(Path.of(sandbox.path("runtime").path("vsockSocket").asText()), GuestCmdline.defaults().probePort(), PROBE);
    }
}
