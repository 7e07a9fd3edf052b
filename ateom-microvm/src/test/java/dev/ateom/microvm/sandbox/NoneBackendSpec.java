package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.json.ApiJson;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A sandbox spec for the stand-in's {@code none} backend, shared by the daemon tests here and the e2e tests: a kernel
 * file it never reads and a rootfs dir (made in {@code imageDir} if missing), one durable dir, and an "identity"
 * system-info volume with the identity fields asked for.
 */
public final class NoneBackendSpec {
    private NoneBackendSpec() {}

    /**
     * @param id             the sandbox id, or null to let the daemon choose one
     * @param identityFields actorMetadata fields written to the identity volume, each under its own name
     */
    public static ObjectNode of(Path imageDir, String id, String name, String namespace, String... identityFields) throws IOException {
        Path image = Files.createDirectories(imageDir);
        Path kernel = image.resolve("vmlinux");
        if (!Files.exists(kernel)) Files.writeString(kernel, "not a kernel: the none backend never reads it");
        Files.createDirectories(image.resolve("rootfs/etc"));
        ObjectNode spec = ApiJson.mapper().createObjectNode();
        if (id != null) spec.put("id", id);
        spec.putObject("identity").put("name", name).put("namespace", namespace);
        spec.put("vcpus", 1).put("memoryMib", 128).put("kernel", kernel.toString()).put("cmdline", "console=ttyS0")
                .put("rootfs", image.resolve("rootfs").toString());
        spec.putArray("durableDirs").add("data");
        ObjectNode volume = spec.putObject("systemInfo").putArray("volumes").addObject().put("name", "identity");
        ArrayNode items = volume.putArray("sources").addObject().putObject("actorMetadata").putArray("items");
        for (String field : identityFields) items.add(ApiJson.mapper().createObjectNode().put("field", field).put("path", field));
        return spec;
    }
}
