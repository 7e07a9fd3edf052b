package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.json.ApiJson;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12, item 7 (daemon part): the sandbox spec a snapshot's manifest carries can be edited on disk, so a clone
 * checks it like a create request, the allowed roots included, and a refused clone leaves no sandbox.
 */
class TamperedSnapshotSpecTest {
    private static final String SPEC_ANNOTATION = "ateom.dev/sandbox-spec";
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of());
    static Path manifest;
    static String snapshot;
    static String original;

    @BeforeAll
    static void start() throws Exception {
        daemon.createOk(daemon.spec("source", "source"));
        snapshot = daemon.post("/v1/sandboxes/source/suspend", "{}").body().path("snapshotId").asText();
        manifest = daemon.stateDir().resolve("snapshots").resolve(snapshot).resolve("manifest.json");
        original = Files.readString(manifest);
    }

    @AfterAll
    static void stop() throws Exception {
        Files.writeString(manifest, original);
        assertThat(daemon.delete("/v1/sandboxes/source?deleteSnapshots=true").status()).isEqualTo(204);
    }

    static Stream<Arguments> tampered() {
        return Stream.of(
                Arguments.of("rootfs", (Consumer<ObjectNode>) s -> s.put("rootfs", "/")),
                Arguments.of("rootfs", (Consumer<ObjectNode>) s -> s.put("rootfs", daemon.stateDir().toString())),
                Arguments.of("kernel", (Consumer<ObjectNode>) s -> s.put("kernel", "/etc/shadow")),
                Arguments.of("vcpus", (Consumer<ObjectNode>) s -> s.put("vcpus", 999)),
                Arguments.of("durableDirs[0]", (Consumer<ObjectNode>) s -> s.putArray("durableDirs").add("../../../../etc")),
                Arguments.of("systemInfo.volumes[0].sources[0].hostDirectory.path", (Consumer<ObjectNode>) s -> {
                    ObjectNode volume = s.putObject("systemInfo").putArray("volumes").addObject().put("name", "loot");
                    volume.putArray("sources").addObject().putObject("hostDirectory").put("path", daemon.stateDir().toString());
                }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tampered")
    void aCloneOfATamperedSpecIsRefusedNamingTheField(String field, Consumer<ObjectNode> tamper) throws Exception {
        ObjectNode tree = (ObjectNode) ApiJson.mapper().readTree(original);
        ObjectNode spec = (ObjectNode) ApiJson.mapper().readTree(tree.path("annotations").path(SPEC_ANNOTATION).asText());
        tamper.accept(spec);
        ((ObjectNode) tree.path("annotations")).put(SPEC_ANNOTATION, spec.toString());
        Files.writeString(manifest, ApiJson.mapper().writeValueAsString(tree));

        ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshot).put("id", "clone");
        clone.putObject("identity").put("name", "clone").put("namespace", "tests");
        var res = daemon.post("/v1/sandboxes", clone);
        assertThat(res.status()).as(res.body().toString()).isEqualTo(400);
        JsonNode error = res.body().path("errors").get(0);
        assertThat(error.path("field").asText()).isEqualTo("fromSnapshot");
        assertThat(error.path("reason").asText()).contains(field + " ");
        assertThat(daemon.get("/v1/sandboxes/clone").status()).as("no sandbox left").isEqualTo(404);
        assertThat(daemon.stateDir().resolve("sandboxes/clone")).doesNotExist();
    }
}
