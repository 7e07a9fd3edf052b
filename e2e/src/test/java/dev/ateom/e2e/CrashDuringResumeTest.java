package dev.ateom.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon dies while resuming (before the restore, after it while the guest has not run yet, or after the VM
 * already runs again): the snapshot is untouched, so the restarted daemon shows the sandbox SUSPENDED on it, and it
 * resumes and suspends again.
 */
class CrashDuringResumeTest extends HostTest {

    @ParameterizedTest
    @ValueSource(strings = {"resume.vmRestore", "resume.vmResume", "resume.sync"})
    void crashDuringResumeLeavesTheSandboxSuspendedAndResumable(String crashPoint) throws Exception {
        DaemonProcess first = host.start(DaemonOptions.crashingAt(crashPoint));
        first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "r1")).expect(201, "create");
        Files.writeString(host.durableData("r1").resolve("notes.txt"), "before suspend");
        String snapshot = first.api().post("/v1/sandboxes/r1/suspend", "{}").expect(200, "suspend").body().path("snapshotId").asText();
        first.api().postExpectingCrash("/v1/sandboxes/r1/resume", "{}");
        assertThat(first.awaitCrash()).isEqualTo(137);
        JsonNode onDisk = host.recordOnDisk("r1");
        if (crashPoint.equals("resume.vmRestore")) {
            // RESUMING and then the record with the runtime are written beside the steps up to vm.restore: the crash
            // right before vm.restore may come before either is on disk
            assertThat(onDisk.path("state").asText()).isIn("SUSPENDED", "RESUMING");
        } else {
            assertThat(onDisk.path("state").asText()).isEqualTo("RESUMING");
            assertThat(onDisk.path("runtime").path("epoch").asInt()).as("the runtime is on disk before the guest runs").isEqualTo(2);
        }
        host.awaitOnlyProcesses(List.of(), "CHV and virtiofsd to die with the daemon (parent-death signal)");

        DaemonProcess second = host.start(DaemonOptions.NORMAL);
        JsonNode suspended = RecoveryChecks.inState(second.api(), "r1", "SUSPENDED");
        assertThat(suspended.path("latestSnapshotId").asText()).isEqualTo(snapshot);
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).containsExactly(snapshot);
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noRunDirs(host);
        RecoveryChecks.noSocketsBut(host, List.of("r1"));

        JsonNode resumed = second.api().post("/v1/sandboxes/r1/resume", "{}").expect(200, "resume after recovery").body().path("sandbox");
        assertThat(resumed.path("state").asText()).isEqualTo("RUNNING");
        // the epoch after the last one on disk: 3 once the crashed resume's runtime (epoch 2) was saved; 2 again when
        // the crash came before that save, whose run dir the recovery removed (noRunDirs above), so its sockets are new
        assertThat(resumed.path("runtime").path("epoch").asInt()).as("fresh sockets, not the crashed epoch's")
                .isEqualTo(onDisk.path("epochs").asInt() + 1);
        assertThat(Files.readString(host.durableData("r1").resolve("notes.txt"))).isEqualTo("before suspend");
        RecoveryChecks.noSocketsBut(host, List.of("r1"), "r1");
        String again = second.api().post("/v1/sandboxes/r1/suspend", "{}").expect(200, "suspend again").body().path("snapshotId").asText();
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).containsExactlyInAnyOrder(snapshot, again);
        RecoveryChecks.awaitTeardown(second.api(), "r1");
        RecoveryChecks.noSocketsBut(host, List.of("r1"));
        second.api().delete("/v1/sandboxes/r1?deleteSnapshots=true").expect(204, "delete with snapshots");
        assertThat(host.snapshotDirEntries()).isEmpty();
        RecoveryChecks.noRunDirs(host);
    }
}
