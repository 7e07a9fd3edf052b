package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.systeminfo.spec.ActorIdentity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records survive a daemon upgrade: what this version writes reads back equal, and what earlier versions wrote still
 * loads; saves of one sandbox land in order.
 */
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

    /**
     * A save beside the caller still being written when the next save of the sandbox comes: the next one waits for it,
     * so the older record never lands over the newer one, and a delete never finds its dir made again.
     */
    @Test
    void theNextSaveAndTheDeleteWaitForASaveBesideTheCaller() throws Exception {
        Deque<Runnable> held = new ConcurrentLinkedDeque<>();
        SandboxStore store = new SandboxStore(dir, held::add);
        SandboxRecord resuming = record("s2").withState(SandboxState.RESUMING);
        SandboxRecord running = resuming.withState(SandboxState.RUNNING);
        store.save(resuming, SandboxStore.Durability.BESIDE);
        assertThat(held).as("the save beside is handed to its writer").hasSize(1);

        Thread next = Thread.ofPlatform().start(() -> store.save(running, SandboxStore.Durability.SYNCED));
        awaitBlockedOrDone(next);
        held.poll().run();
        next.join(10_000);
        assertThat(next.isAlive()).isFalse();
        assertThat(store.loadAll()).containsExactly(running);

        store.save(resuming, SandboxStore.Durability.BESIDE);
        Thread delete = Thread.ofPlatform().start(() -> store.deleteAll("s2"));
        awaitBlockedOrDone(delete);
        held.poll().run();
        delete.join(10_000);
        assertThat(dir.resolve("s2")).doesNotExist();
    }

    /** Until {@code thread} waits (for the save beside) or has ended (it did not wait: the check after it fails). */
    private static void awaitBlockedOrDone(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (thread.isAlive() && thread.getState() != Thread.State.WAITING && System.nanoTime() < deadline) Thread.sleep(5);
        assertThat(thread.getState()).isIn(Thread.State.WAITING, Thread.State.TERMINATED);
    }

    private static SandboxRecord record(String id) {
        SandboxSpec spec = new SandboxSpec(id, new IdentitySpec(id, "tests"), 1, 128, "/k", null, "console=ttyS0", "/rootfs",
                List.of("data"), null, null, null, null, null, null);
        return SandboxRecord.creating(id, spec, new ActorIdentity(id, "tests", "uid-" + id), null, Operation.CREATE);
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
