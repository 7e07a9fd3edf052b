package dev.ateom.e2e;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Sandbox specs for the stand-in's {@code none} backend: a kernel file it never reads, a rootfs dir, one durable dir. */
final class SandboxSpecs {
    private SandboxSpecs() {}

    /** The guest image dir under a test root; the daemon is started with it as its only image root. */
    static Path imageDir(Path root) { return root.resolve("image"); }

    static ObjectNode create(Path root, String id) throws IOException {
        Path image = Files.createDirectories(imageDir(root));
        Path kernel = image.resolve("vmlinux");
        if (!Files.exists(kernel)) Files.writeString(kernel, "not a kernel: the none backend never reads it");
        Files.createDirectories(image.resolve("rootfs/etc"));
        ObjectNode spec = DaemonApi.JSON.createObjectNode().put("id", id);
        spec.putObject("identity").put("name", id).put("namespace", "e2e");
        spec.put("vcpus", 1).put("memoryMib", 128).put("kernel", kernel.toString()).put("cmdline", "console=ttyS0")
                .put("rootfs", image.resolve("rootfs").toString());
        spec.putArray("durableDirs").add("data");
        ObjectNode volume = spec.putObject("systemInfo").putArray("volumes").addObject().put("name", "identity");
        volume.putArray("sources").addObject().putObject("actorMetadata").putArray("items")
                .add(DaemonApi.JSON.createObjectNode().put("field", "name").put("path", "name"));
        return spec;
    }

    static ObjectNode cloneOf(String snapshotId, String id) {
        ObjectNode spec = DaemonApi.JSON.createObjectNode().put("fromSnapshot", snapshotId).put("id", id);
        spec.putObject("identity").put("name", id).put("namespace", "e2e");
        return spec;
    }
}
