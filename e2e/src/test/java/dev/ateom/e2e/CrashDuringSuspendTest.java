package dev.ateom.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.fixtures.wait.Eventually;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon dies while suspending. Before the commit the half-made snapshot is a staging dir that the
 * restart sweeps, and the sandbox is FAILED with its durable data kept on the host; after the commit the
 * sandbox is SUSPENDED on the committed snapshot and resumes from it.
 */
class CrashDuringSuspendTest extends HostTest {

    @ParameterizedTest
    @ValueSource(strings = {"suspend.archive", "suspend.commit"})
    void crashBeforeTheCommitLeavesAFailedSandboxWithItsDurableDataAndNoSnapshot(String crashPoint) throws Exception {
        DaemonProcess first = host.start(DaemonOptions.crashingAt(crashPoint));
        first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "s1")).expect(201, "create");
        Files.writeString(host.durableData("s1").resolve("notes.txt"), "kept");
        first.api().postExpectingCrash("/v1/sandboxes/s1/suspend", "{}");
        assertThat(first.awaitCrash()).isEqualTo(137);
        assertThat(host.recordOnDisk("s1").path("state").asText()).isEqualTo("SUSPENDING");
        assertThat(host.snapshotDirEntries()).as("the crash left a half-made snapshot").singleElement()
                .satisfies(entry -> assertThat(entry).startsWith(".staging-"));

        DaemonProcess second = host.start(DaemonOptions.NORMAL);
        JsonNode failed = RecoveryChecks.inState(second.api(), "s1", "FAILED");
        assertThat(failed.path("failureReason").asText()).contains("before the snapshot was committed", "durable data is intact");
        assertThat(failed.path("snapshotIds")).isEmpty();
        assertThat(Files.readString(host.durableData("s1").resolve("notes.txt"))).isEqualTo("kept");
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).as("staging swept").isEmpty();
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noRunDirs(host);

        second.api().post("/v1/sandboxes/s1/resume", "{}").expect(409, "a failed sandbox has nothing to resume");
        second.api().delete("/v1/sandboxes/s1").expect(204, "delete the failed sandbox");
        assertThat(host.sandboxDir("s1")).doesNotExist();
    }

    @Test
    void crashAfterTheCommitLeavesTheSandboxSuspendedOnTheNewSnapshot() throws Exception {
        // a first, recorded snapshot, so recovery must pick the newer, unrecorded one
        String older;
        try (DaemonProcess earlier = host.start(DaemonOptions.NORMAL)) {
            earlier.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "s2")).expect(201, "create");
            Files.writeString(host.durableData("s2").resolve("notes.txt"), "v1");
            older = earlier.api().post("/v1/sandboxes/s2/suspend", "{}").expect(200, "suspend").body().path("snapshotId").asText();
        }
        // settle: after the commit, before the record says SUSPENDED (the answer and the teardown come after it)
        DaemonProcess first = host.start(DaemonOptions.crashingAt("suspend.settle"));
        DaemonApi api = first.api();
        api.post("/v1/sandboxes/s2/resume", "{}").expect(200, "resume");
        Files.writeString(host.durableData("s2").resolve("notes.txt"), "v2");
        api.postExpectingCrash("/v1/sandboxes/s2/suspend", "{}");
        assertThat(first.awaitCrash()).isEqualTo(137);
        assertThat(host.recordOnDisk("s2").path("state").asText()).isEqualTo("SUSPENDING");
        List<String> committed = host.snapshotDirEntries();
        assertThat(committed).as("both snapshots committed, nothing staged").hasSize(2).contains(older).noneMatch(e -> e.startsWith("."));
        String newer = committed.stream().filter(id -> !id.equals(older)).findFirst().orElseThrow();

        DaemonProcess second = host.start(DaemonOptions.NORMAL);
        JsonNode suspended = RecoveryChecks.inState(second.api(), "s2", "SUSPENDED");
        assertThat(suspended.path("latestSnapshotId").asText()).isEqualTo(newer);
        assertThat(List.of(suspended.path("snapshotIds").get(0).asText(), suspended.path("snapshotIds").get(1).asText()))
                .containsExactly(older, newer);
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).containsExactlyInAnyOrder(older, newer);
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noRunDirs(host);

        second.api().post("/v1/sandboxes/s2/resume", "{}").expect(200, "resume from the recovered snapshot");
        assertThat(Files.readString(host.durableData("s2").resolve("notes.txt"))).isEqualTo("v2");
        String third = second.api().post("/v1/sandboxes/s2/suspend", "{}").expect(200, "suspend again").body().path("snapshotId").asText();
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).containsExactlyInAnyOrder(older, newer, third);
        second.api().delete("/v1/sandboxes/s2?deleteSnapshots=true").expect(204, "delete with snapshots");
        assertThat(host.snapshotDirEntries()).isEmpty();
        RecoveryChecks.noRunDirs(host);
    }

    @Test
    void aCrashBeforeTheCommitNeverSettlesOnASnapshotOfAnEarlierSandboxWithTheSameId() throws Exception {
        String earlier;
        try (DaemonProcess before = host.start(DaemonOptions.NORMAL)) {
            before.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "s4")).expect(201, "create the first s4");
            earlier = before.api().post("/v1/sandboxes/s4/suspend", "{}").expect(200, "suspend").body().path("snapshotId").asText();
            before.api().delete("/v1/sandboxes/s4").expect(204, "delete the first s4, keeping its snapshot");
        }
        DaemonProcess first = host.start(DaemonOptions.crashingAt("suspend.archive"));
        first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "s4")).expect(201, "create a new s4");
        first.api().postExpectingCrash("/v1/sandboxes/s4/suspend", "{}");
        assertThat(first.awaitCrash()).isEqualTo(137);

        DaemonProcess second = host.start(DaemonOptions.NORMAL);
        JsonNode failed = RecoveryChecks.inState(second.api(), "s4", "FAILED");
        assertThat(failed.path("snapshotIds")).as("the first s4's snapshot is not this sandbox's").isEmpty();
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).containsExactly(earlier);
        RecoveryChecks.onlyTheseRun(host, second);
        second.api().delete("/v1/sandboxes/s4").expect(204, "delete");
        second.api().delete("/v1/snapshots/" + earlier).expect(204, "delete the earlier snapshot");
    }

    @Test
    void kill9WhileArchivingTheDurableShareLeavesNoSnapshotAndTheDataIntact() throws Exception {
        DaemonProcess first = host.start(DaemonOptions.NORMAL);
        first.api().post("/v1/sandboxes", SandboxSpecs.create(host.root, "s3")).expect(201, "create");
        Path big = host.durableData("s3").resolve("big.bin");
        long size = writeIncompressible(big, 128);
        CompletableFuture<?> suspend = CompletableFuture.runAsync(() -> {
            try {
                first.api().post("/v1/sandboxes/s3/suspend", "{}");
            } catch (Exception expected) {
                // the daemon is killed under this request
            }
        });
        // archiving and hashing 128 MiB takes far longer than noticing the archive appear
        awaitArchiveStarted();
        first.kill9();
        suspend.get();
        assertThat(host.recordOnDisk("s3").path("state").asText()).isEqualTo("SUSPENDING");
        assertThat(host.snapshotDirEntries()).as("killed before the commit").allMatch(e -> e.startsWith(".staging-")).isNotEmpty();

        DaemonProcess second = host.start(DaemonOptions.NORMAL);
        RecoveryChecks.inState(second.api(), "s3", "FAILED");
        assertThat(Files.size(big)).isEqualTo(size);
        assertThat(RecoveryChecks.snapshotsCompleteOrAbsent(host, second.api())).isEmpty();
        RecoveryChecks.onlyTheseRun(host, second);
        RecoveryChecks.noRunDirs(host);
        second.api().delete("/v1/sandboxes/s3").expect(204, "delete");
    }

    private void awaitArchiveStarted() {
        Eventually.until(Duration.ofSeconds(30), () -> host.snapshotDirEntries().stream().anyMatch(entry -> entry.startsWith(".staging-")
                && Files.exists(host.snapshotsDir().resolve(entry).resolve("durable.tar"))),
                "the durable archive to appear under " + host.snapshotsDir(), () -> host.snapshotDirEntries().toString());
    }

    /** A file of random-looking bytes (one random MiB repeated), so nothing can skip or shrink it. */
    private static long writeIncompressible(Path file, int mib) throws Exception {
        byte[] block = new byte[1 << 20];
        ThreadLocalRandom.current().nextBytes(block);
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int i = 0; i < mib; i++) out.write(block);
        }
        return Files.size(file);
    }
}
