package dev.ateom.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.chv.ChvClient;
import dev.ateom.chv.ChvTimeouts;
import dev.ateom.chv.VmState;
import org.junit.jupiter.api.Test;

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

    /**
     * One sandbox through both crashes with surviving children (three daemons rather than four): killed while the
     * guest is paused, then, on the recovered sandbox, killed after a checkpoint's commit.
     */
    @Test
    void withSurvivingChildrenAPausedGuestIsResumedAndACommittedCheckpointIsRecorded() throws Exception {
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

        // killed while paused: the restart resumes the VM, adopts the sandbox and sweeps the half snapshot
        DaemonProcess second = host.start(new DaemonOptions("checkpoint.record", false));
        JsonNode adopted = RecoveryChecks.inState(second.api(), "c1", "RUNNING");
        assertThat(adopted.path("runtime").path("chvPid").asLong()).as("the same VM, not a new one").isEqualTo(runtime.path("chvPid").asLong());
        assertThat(vmState(runtime)).as("recovery resumed the paused guest").isEqualTo(VmState.Running);
        assertThat(adopted.path("snapshotIds")).as("no snapshot was committed").isEmpty();
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).as("the staging dir is swept").isEmpty();
        RecoveryChecks.onlyTheseRun(host, second, pids(runtime));

        // the recovered sandbox checkpoints again, and this daemon dies after the commit, before the record update
        Files.writeString(host.durableData("c1").resolve("notes.txt"), "at the checkpoint");
        second.api().postExpectingCrash("/v1/sandboxes/c1/checkpoint", "{}");
        assertThat(second.awaitCrash()).isEqualTo(137);
        assertThat(host.recordOnDisk("c1").path("snapshotIds")).as("the record does not know the snapshot yet").isEmpty();
        List<String> entries = host.snapshotDirEntries();
        assertThat(entries).as("one committed snapshot, nothing staged").hasSize(1).noneMatch(e -> e.startsWith("."));
        String committed = entries.getFirst();
        assertThat(vmState(runtime)).as("a checkpoint resumes the guest before it commits").isEqualTo(VmState.Running);

        DaemonProcess third = host.start(DaemonOptions.keepingChildren());
        JsonNode recorded = RecoveryChecks.inState(third.api(), "c1", "RUNNING");
        assertThat(recorded.path("latestSnapshotId").asText()).isEqualTo(committed);
        assertThat(texts(recorded.path("snapshotIds"))).containsExactly(committed);
        assertThat(host.recordOnDisk("c1").path("latestSnapshotId").asText()).as("recorded on disk too").isEqualTo(committed);
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, third.api())).containsExactly(committed);
        RecoveryChecks.onlyTheseRun(host, third, pids(runtime));

        // usable: a clone restores from it with the durable data of the checkpoint
        third.api().post("/v1/sandboxes", SandboxSpecs.cloneOf(committed, "c1-clone")).expect(201, "clone the recovered checkpoint");
        assertThat(Files.readString(host.durableData("c1-clone").resolve("notes.txt"))).isEqualTo("at the checkpoint");
        third.api().delete("/v1/sandboxes/c1-clone").expect(204, "delete the clone");
        third.api().delete("/v1/sandboxes/c1?deleteSnapshots=true").expect(204, "delete");
        assertThat(host.snapshotDirEntries()).isEmpty();
        RecoveryChecks.onlyTheseRun(host, third);
    }

    /**
     * Children die with the daemon (the default): the VM is gone, so the sandbox is FAILED, its durable data kept,
     * like any RUNNING sandbox after a crash. A half-made snapshot (killed while archiving) is swept; a snapshot the
     * checkpoint had committed (killed after the commit) stays recorded, clonable, and goes with the sandbox's
     * snapshots. Two sandboxes, one crash each, three daemons.
     */
    @Test
    void withChildrenDyingTheSandboxIsFailedAndOnlyACommittedSnapshotRemains() throws Exception {
        DaemonProcess first = host.start(DaemonOptions.crashingAt("checkpoint.archive"));
        first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "c3")).expect(201, "create");
        Files.writeString(host.durableData("c3").resolve("notes.txt"), "kept");
        first.api().postExpectingCrash("/v1/sandboxes/c3/checkpoint", "{}");
        assertThat(first.awaitCrash()).isEqualTo(137);
        assertThat(host.snapshotDirEntries()).as("killed while archiving").singleElement()
                .satisfies(entry -> assertThat(entry).startsWith(".staging-"));

        DaemonProcess second = host.start(DaemonOptions.crashingAt("checkpoint.record"));
        JsonNode halfMade = RecoveryChecks.inState(second.api(), "c3", "FAILED");
        assertThat(halfMade.path("failureReason").asText()).contains("VM was gone");
        assertThat(halfMade.path("snapshotIds")).isEmpty();
        assertThat(Files.readString(host.durableData("c3").resolve("notes.txt"))).isEqualTo("kept");
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).as("the half-made snapshot is swept").isEmpty();
        RecoveryChecks.noSocketsBut(host, List.of("c3"));

        second.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "c4")).expect(201, "create");
        Files.writeString(host.durableData("c4").resolve("notes.txt"), "kept");
        second.api().postExpectingCrash("/v1/sandboxes/c4/checkpoint", "{}");
        assertThat(second.awaitCrash()).isEqualTo(137);

        DaemonProcess third = host.start(DaemonOptions.NORMAL);
        JsonNode failed = RecoveryChecks.inState(third.api(), "c4", "FAILED");
        assertThat(failed.path("failureReason").asText()).contains("VM was gone");
        assertThat(Files.readString(host.durableData("c4").resolve("notes.txt"))).isEqualTo("kept");
        List<String> snapshots = RecoveryChecks.snapshotsCompleteOrAbsent(host, third.api());
        assertThat(snapshots).hasSize(1);
        assertThat(failed.path("latestSnapshotId").asText()).as("the committed checkpoint stays recorded").isEqualTo(snapshots.getFirst());
        RecoveryChecks.onlyTheseRun(host, third);
        RecoveryChecks.noRunDirs(host);
        third.api().post("/v1/sandboxes", SandboxSpecs.cloneOf(snapshots.getFirst(), "c4-clone")).expect(201, "clone it");
        assertThat(Files.readString(host.durableData("c4-clone").resolve("notes.txt"))).isEqualTo("kept");
        third.api().delete("/v1/sandboxes/c4-clone").expect(204, "delete the clone");
        third.api().delete("/v1/sandboxes/c4?deleteSnapshots=true").expect(204, "delete");
        third.api().delete("/v1/sandboxes/c3").expect(204, "delete");
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
