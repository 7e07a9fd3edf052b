package dev.ateom.microvm.sandbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12, item 8: a create on a full disk cannot even persist its record; it answers 500 and leaves nothing,
 * neither a directory nor a sandbox stuck in CREATING in memory. The full disk is a small tmpfs mounted over
 * {@code <state>/sandboxes} and filled up (the tests run as root, as the daemon does).
 */
class FullDiskCreateTest {
    @TempDir Path dir;

    @Test
    void aCreateThatCannotPersistItsRecordLeavesNothing() throws Exception {
        try (DaemonHarness daemon = new DaemonHarness(dir, Map.of())) {
            Path sandboxes = daemon.stateDir().resolve("sandboxes");
            run("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", sandboxes.toString());
            try {
                fill(sandboxes.resolve("filler"));
                var res = daemon.post("/v1/sandboxes", daemon.spec("full", "full"));
                assertThat(res.status()).as(res.body().toString()).isEqualTo(500);
                assertThat(res.body().path("detail").asText()).contains("cannot persist");
                assertThat(daemon.get("/v1/sandboxes/full").status()).as("not in memory").isEqualTo(404);
                assertThat(daemon.get("/v1/sandboxes").body().path("items")).isEmpty();
                assertThat(sandboxes.resolve("full")).doesNotExist();

                Files.delete(sandboxes.resolve("filler"));
                daemon.createOk(daemon.spec("full", "full"));
                assertThat(daemon.delete("/v1/sandboxes/full").status()).isEqualTo(204);
            } finally {
                run("umount", sandboxes.toString());
            }
        }
    }

    private static void fill(Path file) throws IOException {
        byte[] block = new byte[4096];
        try (OutputStream out = Files.newOutputStream(file)) {
            while (true) out.write(block);
        } catch (IOException full) {
            if (!String.valueOf(full.getMessage()).contains("No space left")) throw full;
        }
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
    }
}
