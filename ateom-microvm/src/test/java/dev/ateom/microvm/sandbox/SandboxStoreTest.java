package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.systeminfo.spec.ActorIdentity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Records survive a daemon upgrade: what this version writes reads back equal, and what earlier versions wrote still loads. */
class SandboxStoreTest {
    @TempDir Path dir;

    @Test
    void aRecordReadsBackAsWritten() {
        SandboxStore store = new SandboxStore(dir);
        SandboxSpec spec = new SandboxSpec("s1", new IdentitySpec("s1", "tests"), 1, 128, "/k", null, "console=ttyS0", "/rootfs",
                List.of("data"), null, null, null, null, null, null);
        SandboxRecord record = SandboxRecord.creating("s1", spec, new ActorIdentity("s1", "tests", "uid-1"), null, Operation.CREATE)
                .withState(SandboxState.SUSPENDED).withSnapshot("s1-0000aaaa").withOperation(Operation.SUSPEND, Map.of("total", 5L))
                .deleting(true);
        store.save(record);
        assertThat(store.loadAll()).containsExactly(record);
        SandboxRecord inStore = record.markedInStore();
        store.save(inStore);
        assertThat(store.loadAll()).containsExactly(inStore);
        assertThat(store.loadAll().getFirst().inStore()).isTrue();
    }

    @Test
    void aDeleteWithSnapshotsWrittenByAnEarlierVersionStillTakesTheSnapshots() throws Exception {
        Files.createDirectories(dir.resolve("old"));
        // as the previous version wrote it: the request hid in lastOperation
        Files.writeString(dir.resolve("old/sandbox.json"), """
                {"id": "old", "identity": {"name": "old", "namespace": "tests", "uid": "u"}, "state": "DELETING",
                 "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:01Z", "snapshotIds": ["old-0000aaaa"],
                 "latestSnapshotId": "old-0000aaaa", "epochs": 2, "lastOperation": "deleteWithSnapshots",
                 "lastTimingsMs": {"total": 12}}
                """);
        Files.createDirectories(dir.resolve("older"));
        Files.writeString(dir.resolve("older/sandbox.json"), """
                {"id": "older", "identity": {"name": "older", "namespace": "tests", "uid": "v"}, "state": "RUNNING",
                 "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:01Z", "epochs": 1, "lastOperation": "clone"}
                """);

        List<SandboxRecord> loaded = new SandboxStore(dir).loadAll();
        assertThat(loaded).extracting(SandboxRecord::id).containsExactly("old", "older");
        assertThat(loaded.get(0).lastOperation()).isEqualTo(Operation.DELETE);
        assertThat(loaded.get(0).deleteSnapshots()).isTrue();
        assertThat(loaded.get(0).snapshotIds()).containsExactly("old-0000aaaa");
        assertThat(loaded.get(1).lastOperation()).isEqualTo(Operation.CLONE);
        assertThat(loaded.get(1).deleteSnapshots()).isFalse();
        assertThat(loaded).noneMatch(SandboxRecord::inStore);
    }
}
