package dev.ateom.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.fixtures.wait.Eventually;
import dev.ateom.fixtures.wait.ProcessStatus;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code --children-die-with-daemon false}, CHV and virtiofsd outlive a {@code kill -9} of the daemon;
 * the restarted daemon adopts the running sandbox and can suspend, resume and delete it.
 */
class AdoptionAfterDaemonKillTest extends HostTest {

    @Test
    void aRunningSandboxSurvivesTheDaemonAndIsAdopted() throws Exception {
        DaemonProcess first = host.start(DaemonOptions.keepingChildren());
        JsonNode created = first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "a1")).expect(201, "create")
                .body().path("sandbox");
        Files.writeString(host.durableData("a1").resolve("notes.txt"), "before the kill");
        long chvPid = created.path("runtime").path("chvPid").asLong();
        List<Long> sharePids = new ArrayList<>();
        created.path("runtime").path("shares").forEach(share -> sharePids.add(share.path("pid").asLong()));
        assertThat(sharePids).hasSize(3);

        first.kill9();
        // the daemon was reaped: a parent-death signal, had there been one, would be pending or done by now
        assertThat(ProcessStatus.survives(chvPid)).as("cloud-hypervisor outlives the daemon").isTrue();
        sharePids.forEach(pid -> assertThat(ProcessStatus.survives(pid)).as("virtiofsd %s outlives the daemon", pid).isTrue());

        DaemonProcess second = host.start(DaemonOptions.keepingChildren());
        JsonNode adopted = RecoveryChecks.inState(second.api(), "a1", "RUNNING");
        assertThat(adopted.path("runtime").path("chvPid").asLong()).as("the same VM, not a new one").isEqualTo(chvPid);
        List<Long> expected = new ArrayList<>(sharePids);
        expected.add(chvPid);
        RecoveryChecks.onlyTheseRun(host, second, expected.toArray(Long[]::new));

        String snapshot = second.api().post("/v1/sandboxes/a1/suspend", "{}").expect(200, "suspend the adopted sandbox")
                .body().path("snapshotId").asText();
        host.awaitOnlyProcesses(List.of(second.pid()), "the adopted CHV and virtiofsd to be stopped by the suspend");
        RecoveryChecks.awaitTeardown(second.api(), "a1");
        RecoveryChecks.noSocketsBut(host, List.of("a1"));
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).containsExactly(snapshot);

        second.api().post("/v1/sandboxes/a1/resume", "{}").expect(200, "resume");
        assertThat(Files.readString(host.durableData("a1").resolve("notes.txt"))).isEqualTo("before the kill");
        second.api().delete("/v1/sandboxes/a1?deleteSnapshots=true").expect(204, "delete");
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noRunDirs(host);
        assertThat(host.snapshotDirEntries()).isEmpty();
    }

    @Test
    void aSandboxThatLostAVirtiofsdIsNotAdoptedAndItsOtherProcessesAreStopped() throws Exception {
        DaemonProcess first = host.start(DaemonOptions.keepingChildren());
        JsonNode runtime = first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "a2")).expect(201, "create")
                .body().path("sandbox").path("runtime");
        first.kill9();
        long durableVirtiofsd = -1;
        for (JsonNode share : runtime.path("shares")) {
            if (share.path("tag").asText().equals("ateDurable")) durableVirtiofsd = share.path("pid").asLong();
        }
        ProcessHandle.of(durableVirtiofsd).orElseThrow().destroyForcibly();
        long killed = durableVirtiofsd;
        Eventually.until(Duration.ofSeconds(10), () -> !HostProcesses.isRunning(killed), "the durable share's virtiofsd to die");

        DaemonProcess second = host.start(DaemonOptions.keepingChildren());
        JsonNode failed = RecoveryChecks.inState(second.api(), "a2", "FAILED");
        assertThat(failed.path("failureReason").asText()).contains("gone");
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noRunDirs(host);
        second.api().delete("/v1/sandboxes/a2").expect(204, "delete");
    }
}
