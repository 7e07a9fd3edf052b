package dev.ateom.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon dies while creating or cloning a sandbox; restarted on the same state dir, the sandbox is
 * FAILED (there is nothing to return to), nothing of the first daemon runs, and the sandbox can be deleted.
 */
class CrashDuringCreateTest extends HostTest {

    @Test
    void crashBeforeVmBootLeavesAFailedSandboxAndItsIdReusable() throws Exception {
        DaemonProcess first = host.start(DaemonOptions.crashingAt("create.vmBoot"));
        first.api().postExpectingCrash("/v1/sandboxes", SandboxSpecs.create(host.root, "c1"));
        assertThat(first.awaitCrash()).isEqualTo(137);
        JsonNode onDisk = host.recordOnDisk("c1");
        assertThat(onDisk.path("state").asText()).isEqualTo("CREATING");
        assertThat(onDisk.path("runtime").path("shares")).as("virtiofsd and CHV had started").hasSize(3);
        host.awaitOnlyProcesses(List.of(), "CHV and virtiofsd to die with the daemon (parent-death signal)");

        DaemonProcess second = host.start(DaemonOptions.NORMAL);
        JsonNode failed = RecoveryChecks.inState(second.api(), "c1", "FAILED");
        assertThat(failed.path("failureReason").asText()).contains("creating");
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noRunDirs(host);
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).isEmpty();

        second.api().delete("/v1/sandboxes/c1").expect(204, "delete the failed sandbox");
        assertThat(host.sandboxDir("c1")).doesNotExist();
        second.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "c1")).expect(201, "create again under the same id");
        RecoveryChecks.inState(second.api(), "c1", "RUNNING");
        second.api().delete("/v1/sandboxes/c1").expect(204, "delete");
        RecoveryChecks.noRunDirs(host);
    }

    @Test
    void crashBeforeCloneRestoreLeavesAFailedCloneAndTheSnapshotIntact() throws Exception {
        DaemonProcess first = host.start(DaemonOptions.crashingAt("clone.vmRestore"));
        first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "src")).expect(201, "create src");
        Files.writeString(host.durableData("src").resolve("notes.txt"), "from src");
        String snapshot = first.api().post("/v1/sandboxes/src/suspend", "{}").expect(200, "suspend src").body().path("snapshotId").asText();
        first.api().postExpectingCrash("/v1/sandboxes", SandboxSpecs.cloneOf(snapshot, "cl1"));
        assertThat(first.awaitCrash()).isEqualTo(137);
        assertThat(host.recordOnDisk("cl1").path("state").asText()).isEqualTo("CREATING");
        assertThat(host.sandboxDir("cl1").resolve("restore")).as("the restore dir was prepared").exists();

        DaemonProcess second = host.start(DaemonOptions.NORMAL);
        assertThat(RecoveryChecks.inState(second.api(), "cl1", "FAILED").path("failureReason").asText()).contains("creating");
        RecoveryChecks.inState(second.api(), "src", "SUSPENDED");
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noSocketsBut(host, List.of("src", "cl1"));
        assertThat(host.runDirEntries()).as("the failed clone's run dir").doesNotContain("cl1");
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).containsExactly(snapshot);

        second.api().delete("/v1/sandboxes/cl1").expect(204, "delete the failed clone");
        second.api().post("/v1/sandboxes", SandboxSpecs.cloneOf(snapshot, "cl2")).expect(201, "clone again");
        assertThat(Files.readString(host.durableData("cl2").resolve("notes.txt"))).isEqualTo("from src");
        second.api().delete("/v1/sandboxes/cl2").expect(204, "delete clone");
        second.api().delete("/v1/sandboxes/src?deleteSnapshots=true").expect(204, "delete src");
        assertThat(host.snapshotDirEntries()).isEmpty();
        RecoveryChecks.noRunDirs(host);
    }

    @Test
    void kill9WhileCloudHypervisorStartsLeavesAFailedSandbox() throws Exception {
        // no warm pool: a create that claims an already started CHV has no start to kill the daemon in (the cold
        // start stays the path whenever the pool is empty)
        DaemonProcess first = host.start(DaemonOptions.NORMAL.withFlags(List.of("--vmm-pool", "0")));
        CompletableFuture<?> create = CompletableFuture.runAsync(() -> {
            try {
                first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "k1"));
            } catch (Exception expected) {
                // the daemon is killed under this request
            }
        });
        // the JVM-based stand-in takes about a second to answer vmm.ping: kill the daemon while it waits
        host.awaitProcess("ChvStandIn");
        first.kill9();
        create.get();
        assertThat(host.recordOnDisk("k1").path("state").asText()).isEqualTo("CREATING");

        DaemonProcess second = host.start(DaemonOptions.NORMAL);
        RecoveryChecks.inState(second.api(), "k1", "FAILED");
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noRunDirs(host);
        second.api().delete("/v1/sandboxes/k1").expect(204, "delete the failed sandbox");
        assertThat(host.sandboxDir("k1")).doesNotExist();
    }
}
