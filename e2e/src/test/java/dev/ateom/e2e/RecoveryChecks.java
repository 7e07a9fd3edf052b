package dev.ateom.e2e;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** What must hold on the host after a daemon restart, whatever the crash was. */
final class RecoveryChecks {
    private RecoveryChecks() {}

    /** Nothing that names the host's root runs except the current daemon and the given (adopted) processes. */
    static void onlyTheseRun(TestHost host, DaemonProcess daemon, Long... adopted) throws InterruptedException {
        List<Long> expected = new ArrayList<>(Arrays.asList(adopted));
        expected.add(daemon.pid());
        host.awaitOnlyProcesses(expected, "the processes of the previous daemon to be gone");
        for (Long pid : adopted) {
            assertThat(HostProcesses.isRunning(pid)).as("adopted process %s", pid).isTrue();
        }
    }

    /** No staging dir is left, and every snapshot dir is one the daemon lists and whose checksums verify. */
    static List<String> snapshotsCompleteOrAbsent(TestHost host, DaemonApi api) throws IOException, InterruptedException {
        List<String> entries = host.snapshotDirEntries();
        assertThat(entries).as("snapshot dir entries (no staging or half-deleted dirs)").allMatch(e -> !e.startsWith("."));
        JsonNode listed = api.get("/v1/snapshots").expect(200, "list snapshots").body().path("items");
        assertThat(listed.findValuesAsText("id")).as("listed snapshots").containsExactlyInAnyOrderElementsOf(entries);
        for (String id : entries) {
            JsonNode inspected = api.get("/v1/snapshots/" + id + "?verify=true").expect(200, "inspect " + id).body();
            assertThat(inspected.path("verification").path("problems")).as("verification of %s", id).isEmpty();
            assertThat(inspected.path("systemInfoCheck").path("findings")).as("system-info in %s", id).isEmpty();
        }
        return entries;
    }

    /**
     * No socket is left in the run dir of a sandbox that is not running (a suspended one may keep its logs
     * there), no run dir is left for a sandbox that does not exist, and restore dirs (hard links into
     * snapshots) exist only for running sandboxes.
     */
    static void noSocketsBut(TestHost host, List<String> existing, String... running) throws IOException {
        List<String> runningIds = Arrays.asList(running);
        for (String entry : host.runDirEntries()) {
            assertThat(existing).as("run dir %s of a sandbox that does not exist", entry).contains(entry);
            if (runningIds.contains(entry)) continue;
            try (Stream<Path> files = Files.walk(host.runDir().resolve(entry))) {
                List<Path> all = files.toList();
                assertThat(all).as("sockets in the run dir of %s, which is not running: %s", entry, all)
                        .noneMatch(RecoveryChecks::isSocket);
            }
        }
        for (String id : existing) {
            if (runningIds.contains(id)) continue;
            assertThat(host.sandboxDir(id).resolve("restore")).as("restore dir of %s, which is not running", id).doesNotExist();
        }
    }

    /** No run dir at all: what a restart leaves for sandboxes it did not adopt. */
    static void noRunDirs(TestHost host) throws IOException {
        assertThat(host.runDirEntries()).as("run dirs").isEmpty();
    }

    private static boolean isSocket(Path path) {
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return (mode & 0170000) == 0140000; // S_IFSOCK
        } catch (IOException e) {
            return false; // gone meanwhile
        }
    }

    /**
     * Waits until a suspended sandbox's processes are stopped: a suspend answers at its commit and stops them after,
     * and its record keeps the runtime until then.
     */
    static void awaitTeardown(DaemonApi api, String id) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (api.sandbox(id).has("runtime")) {
            if (System.nanoTime() > deadline) throw new AssertionError(id + ": its processes were not stopped within 60 s of its suspend");
            Thread.sleep(20);
        }
    }

    /** The sandbox as the daemon shows it, checked to be in {@code state} (and without a runtime unless RUNNING). */
    static JsonNode inState(DaemonApi api, String id, String state) throws IOException, InterruptedException {
        JsonNode sandbox = api.sandbox(id);
        assertThat(sandbox.path("state").asText()).as("state of %s: %s", id, sandbox).isEqualTo(state);
        if (!state.equals("RUNNING")) assertThat(sandbox.has("runtime")).as("runtime of a %s sandbox", state).isFalse();
        return sandbox;
    }
}
