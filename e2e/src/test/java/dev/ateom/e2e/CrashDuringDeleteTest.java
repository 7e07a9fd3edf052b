package dev.ateom.e2e;

import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon dies while deleting a running sandbox: the restart finishes the delete as it was asked, keeping
 * the sandbox's snapshots or deleting them too.
 */
class CrashDuringDeleteTest extends HostTest {

    @Test
    void crashDuringDeleteFinishesTheDeleteOnRestartAndKeepsTheSnapshots() throws Exception {
        String snapshot = crashWhileDeleting("/v1/sandboxes/d1");

        DaemonProcess second = host.start(DaemonOptions.NORMAL);
        second.api().get("/v1/sandboxes/d1").expect(404, "the deleted sandbox");
        assertThat(host.sandboxDir("d1")).doesNotExist();
        RecoveryChecks.noRunDirs(host);
        RecoveryChecks.onlyTheseRun(host, second);
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).as("snapshots are kept unless asked")
                .containsExactly(snapshot);
        second.api().post("/v1/sandboxes", SandboxSpecs.cloneOf(snapshot, "d2")).expect(201, "the kept snapshot still clones");
        second.api().delete("/v1/sandboxes/d2").expect(204, "delete the clone");
        second.api().delete("/v1/snapshots/" + snapshot).expect(204, "delete the snapshot");
        RecoveryChecks.noRunDirs(host);
    }

    @Test
    void crashDuringDeleteWithSnapshotsDeletesThemOnRestart() throws Exception {
        crashWhileDeleting("/v1/sandboxes/d1?deleteSnapshots=true");

        DaemonProcess second = host.start(DaemonOptions.NORMAL);
        second.api().get("/v1/sandboxes/d1").expect(404, "the deleted sandbox");
        assertThat(host.sandboxDir("d1")).doesNotExist();
        assertThat(host.snapshotDirEntries()).as("the snapshots the delete asked to remove").isEmpty();
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).isEmpty();
        RecoveryChecks.noRunDirs(host);
        RecoveryChecks.onlyTheseRun(host, second);
    }

    /** Creates d1, suspends and resumes it (one snapshot), then crashes in the delete's teardown; the snapshot id. */
    private String crashWhileDeleting(String deletePath) throws Exception {
        DaemonProcess first = host.start(DaemonOptions.crashingAt("delete.teardown"));
        first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "d1")).expect(201, "create");
        String snapshot = first.api().post("/v1/sandboxes/d1/suspend", "{}").expect(200, "suspend").body().path("snapshotId").asText();
        first.api().post("/v1/sandboxes/d1/resume", "{}").expect(200, "resume");
        first.api().deleteExpectingCrash(deletePath);
        assertThat(first.awaitCrash()).isEqualTo(137);
        assertThat(host.recordOnDisk("d1").path("state").asText()).isEqualTo("DELETING");
        assertThat(host.snapshotDirEntries()).as("the crash came before any snapshot was deleted").containsExactly(snapshot);
        return snapshot;
    }
}
