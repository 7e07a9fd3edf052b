package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.config.ConfigOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12, item 1: a token holder can hand a guest only what lies in the allowed roots (image roots for kernel,
 * initramfs and rootfs; host-directory roots for hostDirectory sources), judged after resolving symlinks, never the
 * daemon's own state, and a refusal tells nothing about what exists outside the roots.
 */
class AllowedRootsTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of());

    @AfterEach
    void nothingWasCreated() throws Exception {
        assertThat(daemon.get("/v1/sandboxes").body().path("items")).as("no sandbox").isEmpty();
        assertThat(daemon.stateDir().resolve("sandboxes")).isEmptyDirectory();
    }

    @Test
    void theWholeHostAsRootfsIsRefused() throws Exception {
        JsonNode problem = refused(daemon.spec("r1", "r1").put("rootfs", "/"), "rootfs");
        assertThat(problem.toString()).doesNotContain("/etc", "/var");
    }

    @Test
    void theStateDirIsRefusedEvenInsideTheRoots() throws Exception {
        // the harness's image root is inside its temp dir; make one that holds the state dir and try both ways in
        Path wideRoot = Files.createDirectories(daemon.root().resolve("wide"));
        try (DaemonHarness wide = new DaemonHarness(wideRoot, Map.of(
                ConfigOption.IMAGE_ROOTS, wideRoot.toString(),
                ConfigOption.HOST_DIRECTORY_ROOTS, wideRoot.toString()))) {
            for (String path : List.of(wide.stateDir().toString(), wide.stateDir().resolve("sandboxes").toString(),
                    wide.runDir().toString(), wideRoot.toString())) {
                var res = wide.post("/v1/sandboxes", wide.spec("r2", "r2").put("rootfs", path));
                assertThat(res.status()).as(path + ": " + res.body()).isEqualTo(400);
                assertThat(fields(res.body())).containsExactly("rootfs");
            }
            var token = wide.post("/v1/sandboxes", wide.spec("r2", "r2").put("kernel", wide.stateDir().resolve("api-token").toString()));
            assertThat(fields(token.body())).containsExactly("kernel");
            ObjectNode spec = wide.spec("r2", "r2");
            hostDirectory(spec, wide.stateDir().toString());
            var secrets = wide.post("/v1/sandboxes", spec);
            assertThat(secrets.status()).isEqualTo(400);
            assertThat(fields(secrets.body())).containsExactly("systemInfo.volumes[1].sources[0].hostDirectory.path");
            assertThat(wide.get("/v1/sandboxes").body().path("items")).isEmpty();
        }
    }

    @Test
    void aHostFileIsRefusedWithTheSameWordsWhetherItExistsOrNot() throws Exception {
        String shadow = reason(refused(daemon.spec("r3", "r3").put("kernel", "/etc/shadow"), "kernel"));
        String missing = reason(refused(daemon.spec("r3", "r3").put("kernel", "/no/such/kernel"), "kernel"));
        String directory = reason(refused(daemon.spec("r3", "r3").put("kernel", "/etc"), "kernel"));
        assertThat(shadow).isEqualTo(missing).isEqualTo(directory).contains("--image-roots").doesNotContain("shadow", "exist ");
        assertThat(refused(daemon.spec("r3", "r3").put("rootfs", "/etc"), "rootfs").toString()).doesNotContain("passwd");
    }

    @Test
    void aSymlinkInsideTheRootsIsJudgedByWhereItLeads() throws Exception {
        Path image = DaemonHarness.imageDir(daemon.root());
        Files.createDirectories(image);
        Path link = image.resolve("escape");
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, Path.of("/etc"));
        refused(daemon.spec("r4", "r4").put("rootfs", link.toString()), "rootfs");
        refused(daemon.spec("r4", "r4").put("kernel", link.resolve("hostname").toString()), "kernel");
    }

    @Test
    void insideTheRootsTheProblemIsNamed() throws Exception {
        Path image = DaemonHarness.imageDir(daemon.root());
        Files.createDirectories(image.resolve("a-dir"));
        assertThat(reason(refused(daemon.spec("r5", "r5").put("kernel", image.resolve("a-dir").toString()), "kernel")))
                .isEqualTo("is not a regular file");
        Files.writeString(image.resolve("a-file"), "x");
        assertThat(reason(refused(daemon.spec("r5", "r5").put("rootfs", image.resolve("a-file").toString()), "rootfs")))
                .isEqualTo("is not a directory");
    }

    @Test
    void aNulInAPathIsA400() throws Exception {
        refused(daemon.spec("r6", "r6").put("kernel", "/boot/vmlinuz\u0000x"), "kernel");
        refused(daemon.spec("r6", "r6").put("rootfs", "/srv\u0000"), "rootfs");
        refused(daemon.spec("r6", "r6").put("initramfs", "\u0000"), "initramfs");
        ObjectNode spec = daemon.spec("r6", "r6");
        hostDirectory(spec, "/var/lib/kubelet/pods/x\u0000y");
        assertThat(daemon.post("/v1/sandboxes", spec).status()).isEqualTo(400);
    }

    @Test
    void hostDirectorySourcesOutsideTheirRootsAreRefused() throws Exception {
        for (String path : List.of("/etc", "/no/such/dir", DaemonHarness.imageDir(daemon.root()).toString())) {
            ObjectNode spec = daemon.spec("r7", "r7");
            hostDirectory(spec, path);
            JsonNode problem = refused(spec, "systemInfo.volumes[1].sources[0].hostDirectory.path");
            assertThat(reason(problem)).contains("--host-directory-roots");
        }
    }

    @Test
    void aHostDirectoryThatCannotBeReadIsA400AndLeavesNoFailedSandbox() throws Exception {
        Path source = Files.createDirectories(DaemonHarness.hostDirectoryRoot(daemon.root()).resolve("with-fifo"));
        Path fifo = source.resolve("pipe");
        if (!Files.exists(fifo)) {
            assertThat(new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor()).isZero();
        }
        ObjectNode spec = daemon.spec("r8", "r8");
        hostDirectory(spec, source.toString());
        var res = daemon.post("/v1/sandboxes", spec);
        assertThat(res.status()).as(res.body().toString()).isEqualTo(400);
        assertThat(fields(res.body())).containsExactly("systemInfo");
        assertThat(daemon.get("/v1/sandboxes/r8").status()).isEqualTo(404);
    }

    @Test
    void aHostDirectoryInsideItsRootsIsServed() throws Exception {
        Path source = Files.createDirectories(DaemonHarness.hostDirectoryRoot(daemon.root()).resolve("config"));
        Files.writeString(source.resolve("setting"), "on");
        ObjectNode spec = daemon.spec("r9", "r9");
        hostDirectory(spec, source.toString());
        daemon.createOk(spec);
        assertThat(daemon.stateDir().resolve("sandboxes/r9/system-info/extra/setting")).hasContent("on");
        assertThat(daemon.delete("/v1/sandboxes/r9").status()).isEqualTo(204);
    }

    private static void hostDirectory(ObjectNode spec, String path) {
        ObjectNode volume = ((ArrayNode) spec.at("/systemInfo/volumes")).addObject().put("name", "extra");
        volume.putArray("sources").addObject().putObject("hostDirectory").put("path", path);
    }

    /** Posts {@code spec}, expects a 400 naming exactly {@code field}, and returns the problem. */
    private static JsonNode refused(ObjectNode spec, String field) throws Exception {
        var res = daemon.post("/v1/sandboxes", spec);
        assertThat(res.status()).as(res.body().toString()).isEqualTo(400);
        assertThat(res.contentType()).isEqualTo("application/problem+json");
        assertThat(fields(res.body())).as(res.body().toString()).containsExactly(field);
        return res.body();
    }

    private static List<String> fields(JsonNode problem) { return problem.path("errors").findValuesAsText("field"); }

    private static String reason(JsonNode problem) { return problem.path("errors").get(0).path("reason").asText(); }
}
