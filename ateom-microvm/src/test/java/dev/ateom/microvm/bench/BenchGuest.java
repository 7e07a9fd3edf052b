package dev.ateom.microvm.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.fixtures.guest.GuestCmdline;
import dev.ateom.fixtures.guest.GuestImage;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.sandbox.TestTools;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One backend's hypervisor and sandbox spec: the CHV stand-in with its {@code none} backend (no guest: the daemon's
 * own costs) or {@code qemu} (a real TCG guest booted from the fixtures' image), or the real CHV named by
 * {@code ATEOM_CLOUD_HYPERVISOR} with the same guest.
 */
record BenchGuest(String backend, Path hypervisor, ObjectNode spec) {

    static BenchGuest prepare(Path root, String backend, Duration readiness) throws Exception {
        return new BenchGuest(backend, hypervisor(root, backend), spec(root, backend, readiness));
    }

    /** The spec for sandbox {@code id}. */
    String specFor(String id) {
        ObjectNode copy = spec.deepCopy().put("id", id);
        ((ObjectNode) copy.path("identity")).put("name", id);
        return copy.toString();
    }

    /** The daemon's --image-roots: the directories of the spec's kernel, initramfs and rootfs. */
    String imageRoots() {
        List<String> roots = new ArrayList<>();
        for (String file : new String[] {"kernel", "initramfs"}) {
            if (spec.hasNonNull(file)) roots.add(Path.of(spec.get(file).asText()).getParent().toString());
        }
        roots.add(spec.get("rootfs").asText());
        return String.join(",", roots);
    }

    private static Path hypervisor(Path root, String backend) throws Exception {
        if (backend.equals("chv")) {
            String chv = System.getenv("ATEOM_CLOUD_HYPERVISOR");
            if (chv == null) throw new IllegalStateException("backend chv needs ATEOM_CLOUD_HYPERVISOR to name a Cloud Hypervisor");
            return Path.of(chv);
        }
        if (!backend.equals("none") && !backend.equals("qemu")) {
            throw new IllegalArgumentException("unknown backend " + backend + " (none, qemu or chv)");
        }
        Path chv = root.resolve("cloud-hypervisor");
        Files.writeString(chv, "#!/bin/sh\nATEOM_STANDIN_BACKEND=" + backend + " exec " + TestTools.standIn() + " \"$@\"\n");
        Files.setPosixFilePermissions(chv, PosixFilePermissions.fromString("rwxr-xr-x"));
        return chv;
    }

    private static ObjectNode spec(Path root, String backend, Duration readiness) throws Exception {
        ObjectNode spec = ApiJson.mapper().createObjectNode();
        spec.putObject("identity").put("name", "bench").put("namespace", "bench");
        spec.put("vcpus", 1).put("memoryMib", 128);
        if (backend.equals("none")) {
            Path image = Files.createDirectories(root.resolve("image"));
            Files.createDirectories(image.resolve("rootfs/etc"));
            spec.put("kernel", Files.writeString(image.resolve("vmlinux"), "not a kernel").toString())
                    .put("cmdline", "console=ttyS0").put("rootfs", image.resolve("rootfs").toString());
        } else {
            GuestImage guest = GuestImage.ensureBuilt();
            spec.put("memoryMib", 256).put("kernel", guest.vmlinux().toString()).put("initramfs", guest.initramfs().toString())
                    .put("cmdline", GuestCmdline.defaults().render()).put("rootfs", guest.rootfs().toString());
            spec.putObject("readiness").put("type", "probe").put("port", GuestCmdline.defaults().probePort())
                    .put("timeoutSeconds", readiness.toSeconds());
        }
        spec.putArray("durableDirs").add("data");
        ObjectNode volume = spec.putObject("systemInfo").putArray("volumes").addObject().put("name", "identity");
        volume.putArray("sources").addObject().putObject("actorMetadata").putArray("items")
                .add(ApiJson.mapper().createObjectNode().put("field", "name").put("path", "name"));
        return spec;
    }
}
