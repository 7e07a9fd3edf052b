package dev.ateom.microvm.sandbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12, item 2: the state and run dirs and what the daemon makes below them are private to the daemon's user;
 * directories found open at start are closed. The guest-visible durable and system-info roots keep their modes.
 */
class PrivateStateTest {
    @TempDir Path dir;

    @Test
    void openDirsAreClosedAtStartAndNewSandboxesArePrivate() throws Exception {
        for (String open : new String[] {"state", "state/sandboxes", "state/snapshots", "run"}) {
            Files.createDirectories(dir.resolve(open));
            Files.setPosixFilePermissions(dir.resolve(open), PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        try (DaemonHarness daemon = new DaemonHarness(dir, Map.of())) {
            for (Path fixed : new Path[] {daemon.stateDir(), daemon.stateDir().resolve("sandboxes"), daemon.stateDir().resolve("snapshots"),
                    daemon.runDir()}) {
                assertThat(mode(fixed)).as(fixed.toString()).isEqualTo("rwx------");
            }
            daemon.createOk(daemon.spec("private", "private"));
            Path sandbox = daemon.stateDir().resolve("sandboxes/private");
            assertThat(mode(sandbox)).isEqualTo("rwx------");
            assertThat(mode(sandbox.resolve("sandbox.json"))).isEqualTo("rw-------");
            assertThat(mode(daemon.runDir().resolve("private"))).isEqualTo("rwx------");
            assertThat(mode(daemon.stateDir().resolve("api-token"))).isEqualTo("rw-------");
            // the guest mounts these: their own modes are the guest's business, the 0700 above keeps host users out
            assertThat(mode(sandbox.resolve("durable"))).isEqualTo("rwxr-xr-x");

            String snapshot = daemon.post("/v1/sandboxes/private/suspend", "{}").body().path("snapshotId").asText();
            assertThat(mode(daemon.stateDir().resolve("snapshots"))).isEqualTo("rwx------");
            assertThat(daemon.stateDir().resolve("snapshots").resolve(snapshot)).exists();
            assertThat(daemon.delete("/v1/sandboxes/private?deleteSnapshots=true").status()).isEqualTo(204);
        }
    }

    @Test
    void anExistingSandboxDirIsClosedAtStart() throws Exception {
        try (DaemonHarness first = new DaemonHarness(dir, Map.of())) {
            first.createOk(first.spec("older", "older"));
            first.post("/v1/sandboxes/older/suspend", "{}");
        }
        Path sandbox = dir.resolve("state/sandboxes/older");
        Files.setPosixFilePermissions(sandbox, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (DaemonHarness second = new DaemonHarness(dir, Map.of())) {
            assertThat(mode(sandbox)).isEqualTo("rwx------");
            assertThat(second.delete("/v1/sandboxes/older?deleteSnapshots=true").status()).isEqualTo(204);
        }
    }

    private static String mode(Path path) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }
}
