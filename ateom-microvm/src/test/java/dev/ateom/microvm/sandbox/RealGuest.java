package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.chv.vsock.ProbeClient;
import dev.ateom.fixtures.guest.GuestCmdline;
import dev.ateom.fixtures.guest.GuestImage;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * A daemon whose sandboxes are real guests (set up as in RealGuestSandboxTest): the CHV stand-in's {@code qemu}
 * backend, each VM a QEMU/TCG run of the fixture guest, whose identity probe answers over hybrid vsock.
 */
final class RealGuest {
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(20);

    private RealGuest() {}

    /** A daemon on {@code dir} whose "cloud-hypervisor" is a wrapper that picks the stand-in's qemu backend. */
    static DaemonHarness daemon(Path dir) throws Exception { return daemon(dir, Map.of()); }

    /** As {@link #daemon(Path)}, with {@code extra} flags over those. */
    static DaemonHarness daemon(Path dir, Map<ConfigOption, String> extra) throws Exception {
        GuestImage guest = GuestImage.ensureBuilt();
        Path chv = dir.resolve("cloud-hypervisor");
        Files.writeString(chv, "#!/bin/sh\nATEOM_STANDIN_BACKEND=qemu exec " + TestTools.standIn() + " \"$@\"\n");
        Files.setPosixFilePermissions(chv, PosixFilePermissions.fromString("rwxr-xr-x"));
        String imageRoots = String.join(",", guest.vmlinux().getParent().toString(), guest.initramfs().getParent().toString(),
                guest.rootfs().toString());
        Map<ConfigOption, String> flags = new EnumMap<>(ConfigOption.class);
        flags.putAll(Map.of(ConfigOption.CLOUD_HYPERVISOR, chv.toString(), ConfigOption.IMAGE_ROOTS, imageRoots));
        flags.putAll(extra);
        return new DaemonHarness(dir, flags);
    }

    /** The fixture guest with the durable dir {@code data} (/data/data in the guest), its name as identity, ready on its probe. */
    static ObjectNode spec(String id) {
        GuestImage guest = GuestImage.ensureBuilt();
        ObjectNode spec = ApiJson.mapper().createObjectNode().put("id", id);
        spec.putObject("identity").put("name", id).put("namespace", "tests");
        spec.put("vcpus", 1).put("memoryMib", 256)
                .put("kernel", guest.vmlinux().toString()).put("initramfs", guest.initramfs().toString())
                .put("cmdline", GuestCmdline.defaults().render()).put("rootfs", guest.rootfs().toString());
        spec.putArray("durableDirs").add("data");
        spec.putObject("systemInfo").putArray("volumes").addObject().put("name", "identity")
                .putArray("sources").addObject().putObject("actorMetadata").putArray("items")
                .add(ApiJson.mapper().createObjectNode().put("field", "name").put("path", "name"));
        spec.putObject("readiness").put("type", "probe").put("port", GuestCmdline.defaults().probePort()).put("timeoutSeconds", 180);
        return spec;
    }

    /** The probe of a sandbox in an API answer, over its runtime's vsock socket. */
    static ProbeClient probe(JsonNode sandbox) {
        return new ProbeClient(Path.of(sandbox.path("runtime").path("vsockSocket").asText()), GuestCmdline.defaults().probePort(),
                PROBE_TIMEOUT);
    }
}
