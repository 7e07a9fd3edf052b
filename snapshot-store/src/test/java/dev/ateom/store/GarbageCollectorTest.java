package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.snapshot.SnapshotLayout;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.S3Object;

/** gc removes what no manifest references, keeps what one does and what is younger than the grace. */
class GarbageCollectorTest extends StoreTestBase {
    private static final int MIB = 1 << 20;

    @Test
    void gcNeverRemovesAReferencedChunkAndRemovesOnlyOldUnreferencedOnes() throws IOException {
        hostA.remote().push(PushPullTest.guest().commit(hostA.local(), "keep"), PushListener.NONE);
        hostA.remote().push(new GuestSnapshot().memoryBytes(8L * MIB).memory(0, 4 * MIB, 77).durableFile("x", 100_000, 78)
                .commit(hostA.local(), "drop"), PushListener.NONE);
        Set<ChunkHash> kept = referenced("keep");
        Set<ChunkHash> dropped = referenced("drop");
        dropped.removeAll(kept);
        assertThat(dropped).isNotEmpty();

        GcReport beforeDelete = hostB.remote().gc(Duration.ZERO);
        assertThat(beforeDelete.removed()).isEmpty();
        assertThat(beforeDelete.manifests()).isEqualTo(2);

        assertThat(hostB.remote().delete("drop")).isTrue();
        GcReport young = hostB.remote().gc(Duration.ofHours(1));
        assertThat(young.removed()).isEmpty();
        assertThat(young.keptYoung()).isEqualTo(dropped.size());

        GcReport collected = hostB.remote().gc(Duration.ZERO);
        assertThat(collected.removed()).extracting(GcReport.RemovedChunk::hash).containsExactlyInAnyOrderElementsOf(dropped);
        assertThat(collected.bytesRemoved()).isPositive();
        assertThat(collected.missing()).isEmpty();
        Set<ChunkHash> remaining = new HashSet<>();
        for (S3Object object : raw.chunks()) {
            remaining.add(new ChunkHash(object.key().substring(object.key().lastIndexOf('/') + 1)));
        }
        assertThat(remaining).containsAll(kept).doesNotContainAnyElementsOf(dropped);
        assertThat(hostB.remote().pull("keep", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE).snapshot().id())
                .isEqualTo("keep");
    }

    @Test
    void gcReportsChunksAManifestNeedsButTheStoreLacks() throws IOException {
        hostA.remote().push(PushPullTest.guest().commit(hostA.local(), "snap"), PushListener.NONE);
        ChunkHash victim = referenced("snap").iterator().next();
        try (S3Objects objects = new S3Objects(S3ClientFactory.create(settings()), settings().location())) {
            objects.delete(new StoreKeys(settings().location()).chunk(victim));
        }
        assertThat(hostA.remote().gc(Duration.ZERO).missing()).containsExactly(victim);
    }

    @Test
    void aPushReusingAChunkOlderThanHalfTheGraceRefreshesIt() throws IOException {
        Host shortGrace = host("short", settings().withGcGrace(Duration.ofSeconds(4)), CACHE_BYTES, HOST_CPU);
        shortGrace.remote().push(PushPullTest.guest().commit(shortGrace.local(), "first"), PushListener.NONE);
        String shared = "fleet/chunks/" + hostA.remote().describe("first").orElseThrow().file(SnapshotLayout.MEMORY_RANGES).orElseThrow()
                .chunks().stream().filter(ref -> !ref.isHole()).findFirst().orElseThrow().sha256();
        S3Object before = raw.chunks().stream().filter(o -> o.key().equals(shared)).findFirst().orElseThrow();
        sleepPast(Duration.ofSeconds(3)); // past half the grace (Last-Modified has whole seconds)
        shortGrace.remote().push(PushPullTest.guest().durableFile("data/notes.txt", 1000, 55).commit(shortGrace.local(), "second"),
                PushListener.NONE);
        S3Object after = raw.chunks().stream().filter(o -> o.key().equals(shared)).findFirst().orElseThrow();
        assertThat(after.lastModified()).isAfter(before.lastModified());
    }

    private Set<ChunkHash> referenced(String snapshotId) throws IOException {
        Set<ChunkHash> hashes = new HashSet<>();
        for (String path : SnapshotLayout.CONTENT_FILES) {
            hostA.remote().describe(snapshotId).orElseThrow().file(path).orElseThrow().chunks()
                    .forEach(ref -> ref.chunkHash().ifPresent(hashes::add));
        }
        return hashes;
    }

    private static void sleepPast(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
