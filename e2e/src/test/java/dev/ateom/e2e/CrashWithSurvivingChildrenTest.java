package dev.ateom.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code --children-die-with-daemon false} nothing dies with a crashed daemon, so here the restarted
 * daemon itself must find and stop what the interrupted operation had started (CHV paused or running,
 * virtiofsd), before settling the sandbox as after any crash.
 */
class CrashWithSurvivingChildrenTest extends HostTest {

    @ParameterizedTest
    @ValueSource(strings = {"create.vmBoot", "suspend.archive"})
    void theRestartStopsWhatTheInterruptedOperationStarted(String crashPoint) throws Exception {
        DaemonProcess first = host.start(new DaemonOptions(crashPoint, false));
        if (crashPoint.startsWith("create")) {
            first.api().postExpectingCrash("/v1/sandboxes", SandboxSpecs.create(host.root, "w1"));
        } else {
            first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "w1")).expect(201, "create");
            first.api().postExpectingCrash("/v1/sandboxes/w1/suspend", "{}");
        }
        assertThat(first.awaitCrash()).isEqualTo(137);
        assertThat(host.survivors()).as("CHV and virtiofsd outlive the crash").hasSizeGreaterThanOrEqualTo(4);

        DaemonProcess second = host.start(DaemonOptions.keepingChildren());
        RecoveryChecks.inState(second.api(), "w1", "FAILED");
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noRunDirs(host);
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).isEmpty();
        second.api().delete("/v1/sandboxes/w1").expect(204, "delete");
    }

    @Test
    void aResumeInterruptedAfterTheVmRunsIsSettledSuspendedAndItsVmStopped() throws Exception {
        DaemonProcess first = host.start(new DaemonOptions("resume.sync", false));
        first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "w2")).expect(201, "create");
        String snapshot = first.api().post("/v1/sandboxes/w2/suspend", "{}").expect(200, "suspend").body().path("snapshotId").asText();
        first.api().postExpectingCrash("/v1/sandboxes/w2/resume", "{}");
        assertThat(first.awaitCrash()).isEqualTo(137);
        assertThat(host.survivors()).as("the restored CHV and its virtiofsd outlive the crash").hasSizeGreaterThanOrEqualTo(4);

        DaemonProcess second = host.start(DaemonOptions.keepingChildren());
        JsonNode suspended = RecoveryChecks.inState(second.api(), "w2", "SUSPENDED");
        assertThat(suspended.path("latestSnapshotId").asText()).isEqualTo(snapshot);
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noRunDirs(host);
        second.api().post("/v1/sandboxes/w2/resume", "{}").expect(200, "resume after recovery");
        second.api().delete("/v1/sandboxes/w2?deleteSnapshots=true").expect(204, "delete");
        RecoveryChecks.onlyTheseRun(host, second);
    }

    @Test
    void aCrashWhileASuspendThatAnsweredStopsItsProcessesLeavesItSuspendedAndTheRestartStopsThem() throws Exception {
        DaemonProcess first = host.start(new DaemonOptions("suspend.teardown", false));
        first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "w4")).expect(201, "create");
        try {
            first.api().post("/v1/sandboxes/w4/suspend", "{}").expect(200, "suspend");
        } catch (IOException answerLost) {
            // the suspend answers at its commit and its teardown halts the daemon right after: the answer may be lost
        }
        assertThat(first.awaitCrash()).isEqualTo(137);
        JsonNode onDisk = host.recordOnDisk("w4");
        assertThat(onDisk.path("state").asText()).isEqualTo("SUSPENDED");
        assertThat(onDisk.has("runtime")).as("the record names the processes the teardown had to stop").isTrue();
        String snapshot = onDisk.path("latestSnapshotId").asText();
        assertThat(host.survivors()).as("CHV and virtiofsd outlive the crash").hasSizeGreaterThanOrEqualTo(4);

        DaemonProcess second = host.start(DaemonOptions.keepingChildren());
        JsonNode suspended = RecoveryChecks.inState(second.api(), "w4", "SUSPENDED");
        assertThat(suspended.path("latestSnapshotId").asText()).isEqualTo(snapshot);
        assertThat(suspended.has("runtime")).isFalse();
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noRunDirs(host);
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).containsExactly(snapshot);
        second.api().post("/v1/sandboxes/w4/resume", "{}").expect(200, "resume after recovery");
        second.api().delete("/v1/sandboxes/w4?deleteSnapshots=true").expect(204, "delete");
        RecoveryChecks.onlyTheseRun(host, second);
    }

    /**
     * A resume right after its suspend does not wait for the suspend's teardown (issue 27): it may die while the old VM
     * is still being stopped, before its own runtime is saved (chvStart) or while that save runs beside (vmRestore), so
     * the record holds the old runtime or the new one.
     * Either way the restart finds every process (the old epoch's by its kept run dir) and leaves the sandbox SUSPENDED.
     */
    @ParameterizedTest
    @ValueSource(strings = {"resume.chvStart", "resume.vmRestore"})
    void aResumeDyingBesideItsSuspendsTeardownLeavesItSuspendedAndNothingRunning(String crashPoint) throws Exception {
        DaemonProcess first = host.start(new DaemonOptions(crashPoint, false));
        first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "w5")).expect(201, "create");
        String snapshot = first.api().post("/v1/sandboxes/w5/suspend", "{}").expect(200, "suspend").body().path("snapshotId").asText();
        first.api().postExpectingCrash("/v1/sandboxes/w5/resume", "{}");
        assertThat(first.awaitCrash()).isEqualTo(137);
        assertThat(host.recordOnDisk("w5").path("state").asText()).isEqualTo("RESUMING");

        DaemonProcess second = host.start(DaemonOptions.keepingChildren());
        JsonNode suspended = RecoveryChecks.inState(second.api(), "w5", "SUSPENDED");
        assertThat(suspended.path("latestSnapshotId").asText()).isEqualTo(snapshot);
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noRunDirs(host);
        second.api().post("/v1/sandboxes/w5/resume", "{}").expect(200, "resume after recovery");
        second.api().delete("/v1/sandboxes/w5?deleteSnapshots=true").expect(204, "delete");
        RecoveryChecks.onlyTheseRun(host, second);
    }

    @Test
    void kill9BeforeTheRuntimeIsRecordedStillLeavesNothingRunning() throws Exception {
        DaemonProcess first = host.start(DaemonOptions.keepingChildren());
        CompletableFuture<?> create = CompletableFuture.runAsync(() -> {
            try {
                first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "w3"));
            } catch (Exception expected) {
                // the daemon is killed under this request
            }
        });
        // virtiofsd runs and the JVM-based stand-in is starting: the record names none of them yet
        host.awaitProcess("ChvStandIn");
        first.kill9();
        create.get();
        JsonNode onDisk = host.recordOnDisk("w3");
        assertThat(onDisk.path("state").asText()).isEqualTo("CREATING");
        assertThat(onDisk.has("runtime")).as("killed before the runtime was recorded").isFalse();
        assertThat(host.survivors()).as("virtiofsd and the stand-in outlive the kill").isNotEmpty();

        DaemonProcess second = host.start(DaemonOptions.keepingChildren());
        RecoveryChecks.inState(second.api(), "w3", "FAILED");
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noRunDirs(host);
        second.api().delete("/v1/sandboxes/w3").expect(204, "delete");
    }
}
