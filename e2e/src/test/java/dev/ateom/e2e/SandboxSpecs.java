package dev.ateom.e2e;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.sandbox.NoneBackendSpec;

import java.io.IOException;
import java.nio.file.Path;

/** Sandbox specs for the stand-in's {@code none} backend: a kernel file it never reads, a rootfs dir, one durable dir. */
final class SandboxSpecs {
    private SandboxSpecs() {}

    /** The guest image dir under a test root; the daemon is started with it as its only image root. */
    static Path imageDir(Path root) { return root.resolve("image"); }

    static ObjectNode create(Path root, String id) throws IOException {
        return NoneBackendSpec.of(imageDir(root), id, id, "e2e", "name");
    }

    static ObjectNode cloneOf(String snapshotId, String id) {
        ObjectNode spec = DaemonApi.JSON.createObjectNode().put("fromSnapshot", snapshotId).put("id", id);
        spec.putObject("identity").put("name", id).put("namespace", "e2e");
        return spec;
    }
}
