package dev.ateom.microvm.sandbox.operation;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The durable dir's marker: trusted only for the snapshot it names, and only in the boot that wrote it. */
class DurableSyncMarkerTest {
    @TempDir Path sandboxDir;

    @Test
    void aMarkerNamesItsSnapshotInTheBootThatWroteIt() throws Exception {
        DurableSyncMarker marker = new DurableSyncMarker(sandboxDir, "boot-a");
        assertThat(marker.snapshotId()).isEmpty();
        marker.markInSyncWith("snap-1");
        assertThat(marker.isInSyncWith("snap-1")).isTrue();
        assertThat(marker.isInSyncWith("snap-2")).isFalse();
        marker.markInSyncWith("snap-2");
        assertThat(marker.snapshotId()).hasValue("snap-2");
        try (var files = Files.list(sandboxDir)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("no temp file left").containsExactly("durable.synced");
        }
        marker.clear();
        assertThat(marker.snapshotId()).isEmpty();
        marker.clear(); // idempotent
    }

    @Test
    void aMarkerOfAnotherBootIsNotTrusted() {
        new DurableSyncMarker(sandboxDir, "boot-a").markInSyncWith("snap-1");
        // after a reboot (a host crash among them) the dir may have lost writes the snapshot's memory remembers
        assertThat(new DurableSyncMarker(sandboxDir, "boot-b").isInSyncWith("snap-1")).isFalse();
        assertThat(new DurableSyncMarker(sandboxDir, "boot-a").isInSyncWith("snap-1")).isTrue();
    }

    @Test
    void aMarkerThatNamesNoBootIsNotTrusted() throws Exception {
        // as written before markers named their boot
        Files.writeString(sandboxDir.resolve("durable.synced"), "snap-1\n");
        assertThat(new DurableSyncMarker(sandboxDir, "boot-a").isInSyncWith("snap-1")).isFalse();
        Files.writeString(sandboxDir.resolve("durable.synced"), "");
        assertThat(new DurableSyncMarker(sandboxDir, "boot-a").snapshotId()).isEmpty();
    }

    @Test
    void theDaemonsMarkerNamesThisBoot() throws Exception {
        new DurableSyncMarker(sandboxDir).markInSyncWith("snap-1");
        String bootId = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
        assertThat(Files.readString(sandboxDir.resolve("durable.synced"))).isEqualTo("snap-1 " + bootId + "\n");
    }
}
