package dev.ateom.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.chv.ChvClient;
import dev.ateom.chv.ChvTimeouts;
import dev.ateom.chv.VmState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon dies in the middle of a checkpoint. A checkpoint keeps the sandbox RUNNING on disk from its first
 * step, so recovery must either find the VM (children survive: resume it if the checkpoint left it paused, and
 * record a snapshot the checkpoint committed) or settle the sandbox FAILED like any running sandbox whose VM died
 * with the daemon. In every case no half-made snapshot is left and a committed one is recorded and usable.
 */
class CrashDuringCheckpointTest extends HostTest {

    @Test
    void killedWhileTheGuestIsPausedTheRestartResumesItsVmAndSweepsTheHalfSnapshot() throws Exception {
        DaemonProcess first = host.start(new DaemonOptions("checkpoint.vmResume", false));
        JsonNode runtime = first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "c1")).expect(201, "create")
                .body().path("sandbox").path("runtime");
        first.api().postExpectingCrash("/v1/sandboxes/c1/checkpoint", "{}");
        assertThat(first.awaitCrash()).isEqualTo(137);
        JsonNode onDisk = host.recordOnDisk("c1");
        assertThat(onDisk.path("state").asText()).as("a checkpoint never leaves RUNNING on disk").isEqualTo("RUNNING");
        assertThat(onDisk.path("lastOperation").asText()).isEqualTo("checkpoint");
        assertThat(vmState(runtime)).as("the checkpoint paused the guest and died before resuming it").isEqualTo(VmState.Paused);
        assertThat(host.snapshotDirEntries()).as("snapshot and archive made, not committed").singleElement()
                .satisfies(entry -> assertThat(entry).startsWith(".staging-"));

        DaemonProcess second = host.start(DaemonOptions.keepingChildren());
        JsonNode adopted = RecoveryChecks.inState(second.api(), "c1", "RUNNING");
        assertThat(adopted.path("runtime").path("chvPid").asLong()).as("the same VM, not a new one").isEqualTo(runtime.path("chvPid").asLong());
        assertThat(vmState(runtime)).as("recovery resumed the paused guest").isEqualTo(VmState.Running);
        assertThat(adopted.path("snapshotIds")).as("no snapshot was committed").isEmpty();
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).as("the staging dir is swept").isEmpty();
        RecoveryChecks.onlyTheseRun(host, second, pids(runtime));

        String snapshot = second.api().post("/v1/sandboxes/c1/checkpoint", "{}").expect(200, "checkpoint the recovered sandbox")
                .body().path("snapshotId").asText();
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).containsExactly(snapshot);
        second.api().delete("/v1/sandboxes/c1?deleteSnapshots=true").expect(204, "delete");
        RecoveryChecks.onlyTheseRun(host, second);
    }

    @Test
    void killedAfterTheCommitTheRestartRecordsTheSnapshotAsLatestAndKeepsTheSandboxRunning() throws Exception {
        DaemonProcess first = host.start(new DaemonOptions("checkpoint.record", false));
        JsonNode runtime = first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "c2")).expect(201, "create")
                .body().path("sandbox").path("runtime");
        Files.writeString(host.durableData("c2").resolve("notes.txt"), "at the checkpoint");
        first.api().postExpectingCrash("/v1/sandboxes/c2/checkpoint", "{}");
        assertThat(first.awaitCrash()).isEqualTo(137);
        assertThat(host.recordOnDisk("c2").path("snapshotIds")).as("the record does not know the snapshot yet").isEmpty();
        String committed = host.snapshotDirEntries().getFirst();
        assertThat(host.snapshotDirEntries()).as("one committed snapshot, nothing staged").containsExactly(committed);
        assertThat(vmState(runtime)).as("a checkpoint resumes the guest before it commits").isEqualTo(VmState.Running);

        DaemonProcess second = host.start(DaemonOptions.keepingChildren());
        JsonNode adopted = RecoveryChecks.inState(second.api(), "c2", "RUNNING");
        assertThat(adopted.path("latestSnapshotId").asText()).isEqualTo(committed);
        assertThat(texts(adopted.path("snapshotIds"))).containsExactly(committed);
        assertThat(host.recordOnDisk("c2").path("latestSnapshotId").asText()).as("recorded on disk too").isEqualTo(committed);
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).containsExactly(committed);
        RecoveryChecks.onlyTheseRun(host, second, pids(runtime));

        // usable: a clone restores from it with the durable data of the checkpoint
        second.api().post("/v1/sandboxes", SandboxSpecs.cloneOf(committed, "c2-clone")).expect(201, "clone the recovered checkpoint");
        assertThat(Files.readString(host.durableData("c2-clone").resolve("notes.txt"))).isEqualTo("at the checkpoint");
        second.api().delete("/v1/sandboxes/c2-clone").expect(204, "delete the clone");
        second.api().delete("/v1/sandboxes/c2?deleteSnapshots=true").expect(204, "delete");
        assertThat(host.snapshotDirEntries()).isEmpty();
        RecoveryChecks.onlyTheseRun(host, second);
    }

    /**
     * Children die with the daemon (the default): the VM is gone, so the sandbox is FAILED, its durable data kept,
     * like any RUNNING sandbox after a crash. A snapshot the checkpoint had committed is recorded (deleted with the
     * sandbox's snapshots, clonable meanwhile); a half-made one is swept.
     */
    @ParameterizedTest
    @ValueSource(strings = {"checkpoint.archive", "checkpoint.record"})
    void withChildrenDyingTheSandboxIsFailedAndOnlyACommittedSnapshotRemains(String crashPoint) throws Exception {
        DaemonProcess first = host.start(DaemonOptions.crashingAt(crashPoint));
        first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "c3")).expect(201, "create");
        Files.writeString(host.durableData("c3").resolve("notes.txt"), "kept");
        first.api().postExpectingCrash("/v1/sandboxes/c3/checkpoint", "{}");
        assertThat(first.awaitCrash()).isEqualTo(137);
        boolean committed = crashPoint.endsWith(".record");

        DaemonProcess second = host.start(DaemonOptions.NORMAL);
        JsonNode failed = RecoveryChecks.inState(second.api(), "c3", "FAILED");
        assertThat(failed.path("failureReason").asText()).contains("VM was gone");
        assertThat(Files.readString(host.durableData("c3").resolve("notes.txt"))).isEqualTo("kept");
        List<String> snapshots = RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api());
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noRunDirs(host);
        if (committed) {
            assertThat(snapshots).hasSize(1);
            assertThat(failed.path("latestSnapshotId").asText()).isEqualTo(snapshots.getFirst());
            second.api().post("/v1/sandboxes", SandboxSpecs.cloneOf(snapshots.getFirst(), "c3-clone")).expect(201, "clone it");
            second.api().delete("/v1/sandboxes/c3-clone").expect(204, "delete the clone");
        } else {
            assertThat(snapshots).as("the half-made snapshot is swept").isEmpty();
            assertThat(failed.path("snapshotIds")).isEmpty();
        }
        second.api().delete("/v1/sandboxes/c3?deleteSnapshots=true").expect(204, "delete");
        assertThat(host.snapshotDirEntries()).isEmpty();
    }

    private static VmState vmState(JsonNode runtime) {
        try (ChvClient chv = new ChvClient(Path.of(runtime.path("apiSocket").asText()), ChvTimeouts.all(Duration.ofSeconds(5)))) {
            return chv.info().state();
        }
    }

    /** The CHV and virtiofsd of a runtime: what an adopting restart keeps. */
    private static Long[] pids(JsonNode runtime) {
        List<Long> pids = new ArrayList<>();
        pids.add(runtime.path("chvPid").asLong());
        runtime.path("shares").forEach(share -> pids.add(share.path("pid").asLong()));
        return pids.toArray(Long[]::new);
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(node -> out.add(node.asText()));
        return out;
    }
}
