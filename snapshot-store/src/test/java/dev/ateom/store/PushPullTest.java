package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.snapshot.DataExtents;
import dev.ateom.snapshot.DiskUsage;
import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotInspector;
import dev.ateom.snapshot.SnapshotLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Push on host A, pull on host B, through a real S3 server. */
class PushPullTest extends StoreTestBase {
    private static final int MIB = 1 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    static GuestSnapshot guest() {
        return new GuestSnapshot().memoryBytes(32L * MIB)
                .memory(4096, 3 * MIB, 1)              // straddles the first two 2 MiB chunks, page-aligned start
                .memory(20L * MIB + 123, 100_000, 2)  // unaligned, inside one chunk
                .memory(32L * MIB - 4096, 4096, 3)    // the last page
                .durableFile("data/big.bin", 3 * MIB, 4)
                .durableFile("data/notes.txt", 1000, 5)
                .durableFile("logs/x.log", 200_000, 6);
    }

    @Test
    void aPulledSnapshotIsByteIdenticalKeepsItsHolesAndVerifies() throws IOException {
        Snapshot source = guest().commit(hostA.local(), "snap-1");
        List<PushStatus> pushSteps = new CopyOnWriteArrayList<>();
        PushStatus pushed = hostA.remote().push(source, pushSteps::add);

        assertThat(pushed.state()).isEqualTo(TransferState.DONE);
        assertThat(pushed.doneBytes()).isGreaterThanOrEqualTo(pushed.totalBytes());
        assertThat(pushed.chunksUploaded()).isGreaterThan(3);
        assertThat(pushSteps).extracting(PushStatus::state).contains(TransferState.RUNNING).last().isEqualTo(TransferState.DONE);
        assertThat(hostA.remote().pushStatus("snap-1")).contains(pushed);
        assertThat(raw.list("snapshots/")).extracting(o -> o.key()).containsExactly("fleet/snapshots/snap-1/manifest.json");

        List<PullStatus> pullSteps = new CopyOnWriteArrayList<>();
        PullResult pulled = hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), pullSteps::add);

        assertThat(pulled.alreadyLocal()).isFalse();
        assertThat(pulled.status().state()).isEqualTo(TransferState.DONE);
        assertThat(pulled.status().chunksDownloaded()).isEqualTo(pushed.chunksUploaded());
        assertThat(pullSteps).extracting(PullStatus::state).last().isEqualTo(TransferState.DONE);
        Snapshot copy = pulled.snapshot();
        assertThat(copy.layout().directory()).isEqualTo(hostB.local().snapshotsDirectory().resolve("snap-1"));
        for (String file : Stream.concat(SnapshotLayout.CONTENT_FILES.stream(), Stream.of(SnapshotLayout.MANIFEST)).toList()) {
            assertThat(Files.mismatch(source.layout().directory().resolve(file), copy.layout().directory().resolve(file)))
                    .as(file).isEqualTo(-1L);
        }
        Path memory = copy.layout().memoryRanges();
        assertThat(DataExtents.of(memory)).isEqualTo(DataExtents.of(source.layout().memoryRanges()));
        assertThat(DiskUsage.of(memory).allocatedBytes()).isEqualTo(DiskUsage.of(source.layout().memoryRanges()).allocatedBytes())
                .isLessThan(5L * MIB);
        assertThat(SnapshotInspector.verify(copy).problems()).isEmpty();
        assertThat(hostB.local().list()).containsExactly("snap-1");
        assertThat(hiddenEntries(hostB.local().snapshotsDirectory())).isEmpty();
    }

    @Test
    void aSnapshotAlreadyHereOrInTheCacheIsNotDownloadedAgain() throws IOException {
        Snapshot source = guest().commit(hostA.local(), "snap-1");
        hostA.remote().push(source, PushListener.NONE);
        PullResult first = hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE);

        PullResult again = hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE);
        assertThat(again.alreadyLocal()).isTrue();
        assertThat(again.status().bytesDownloaded()).isZero();

        hostB.local().delete("snap-1");
        PullResult fromCache = hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE);
        assertThat(fromCache.status().chunksDownloaded()).isZero();
        assertThat(fromCache.status().chunksFromCache()).isEqualTo(first.status().chunksDownloaded());
        assertThat(SnapshotInspector.verify(fromCache.snapshot()).ok()).isTrue();
    }

    @Test
    void aPushOfASnapshotTheStoreHasSendsNothingAndAnotherWithItsIdIsRefused() throws IOException {
        Snapshot source = guest().commit(hostA.local(), "snap-1");
        hostA.remote().push(source, PushListener.NONE);
        PushStatus again = hostA.remote().push(source, PushListener.NONE);
        assertThat(again.state()).isEqualTo(TransferState.DONE);
        assertThat(again.bytesUploaded()).isZero();

        Snapshot impostor = guest().durableFile("data/notes.txt", 1000, 99).commit(hostB.local(), "snap-1");
        assertThatThrownBy(() -> hostB.remote().push(impostor, PushListener.NONE)).isInstanceOf(RemoteSnapshotConflictException.class);
    }

    @Test
    void aFlippedByteInAStoredChunkFailsThePullNamingTheChunkAndLeavesNothing() throws IOException {
        Snapshot source = guest().commit(hostA.local(), "snap-1");
        hostA.remote().push(source, PushListener.NONE);
        ChunkHash victim = firstMemoryChunk("snap-1");
        byte[] frame = raw.get("chunks/" + victim.hex());
        frame[frame.length / 2] ^= 0x01;
        raw.put("chunks/" + victim.hex(), frame);

        assertThatThrownBy(() -> hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE))
                .isInstanceOf(ChunkCorruptException.class)
                .hasMessageContaining(victim.hex())
                .satisfies(e -> assertThat(((ChunkException) e).chunk()).isEqualTo(victim));
        assertThat(hostB.local().list()).isEmpty();
        assertThat(hiddenEntries(hostB.local().snapshotsDirectory())).isEmpty();
        assertThat(hostB.remote().chunkCache().contains(victim)).isFalse();
    }

    @Test
    void chunksThatVerifyButAreListedAtTheWrongOffsetsFailThePullOnTheFileDigest() throws IOException {
        Snapshot source = guest().commit(hostA.local(), "snap-1");
        hostA.remote().push(source, PushListener.NONE);
        ObjectNode manifest = (ObjectNode) JSON.readTree(raw.get("snapshots/snap-1/manifest.json"));
        for (JsonNode file : manifest.get("files")) {
            if (file.get("path").asText().equals(SnapshotLayout.MEMORY_RANGES)) {
                ObjectNode first = (ObjectNode) file.get("chunks").get(0);
                ObjectNode second = (ObjectNode) file.get("chunks").get(1);
                String firstHash = first.get("sha256").asText();
                assertThat(second.get("length").asLong()).isEqualTo(first.get("length").asLong());
                first.put("sha256", second.get("sha256").asText());
                second.put("sha256", firstHash);
            }
        }
        raw.put("snapshots/snap-1/manifest.json", JSON.writeValueAsBytes(manifest));

        // every chunk is intact, so only the memory digest (computed from the placed chunks) can catch it
        assertThatThrownBy(() -> hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE))
                .isInstanceOf(PulledSnapshotInvalidException.class)
                .satisfies(e -> assertThat(((PulledSnapshotInvalidException) e).problems())
                        .singleElement().asString().startsWith(SnapshotLayout.MEMORY_RANGES + " has "));
        assertThat(hostB.local().list()).isEmpty();
        assertThat(hiddenEntries(hostB.local().snapshotsDirectory())).isEmpty();
    }

    @Test
    void aMissingChunkFailsThePullNamingIt() throws IOException {
        Snapshot source = guest().commit(hostA.local(), "snap-1");
        hostA.remote().push(source, PushListener.NONE);
        ChunkHash victim = firstMemoryChunk("snap-1");
        try (var objects = new S3Objects(S3ClientFactory.create(settings()), settings().location())) {
            objects.delete(new StoreKeys(settings().location()).chunk(victim));
        }
        assertThatThrownBy(() -> hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE))
                .isInstanceOf(ChunkMissingException.class).hasMessageContaining(victim.hex());
        assertThat(hostB.local().list()).isEmpty();
        assertThat(hiddenEntries(hostB.local().snapshotsDirectory())).isEmpty();
    }

    @Test
    void theChunkCacheStaysWithinItsLimitAndStillServesLaterPulls() throws IOException {
        long limit = 5L * MIB;
        Host small = host("small", settings(), limit, HOST_CPU);
        Snapshot source = new GuestSnapshot().memoryBytes(24L * MIB).memory(0, 16 * MIB, 11).durableFile("d/f", MIB, 12)
                .commit(hostA.local(), "snap-big");
        hostA.remote().push(source, PushListener.NONE);

        PullResult first = small.remote().pull("snap-big", small.local(), PullOptions.forHost("54.0.0"), PullListener.NONE);
        ChunkCache.Stats stats = small.remote().chunkCache().stats();
        assertThat(stats.bytes()).isLessThanOrEqualTo(limit).isPositive();
        assertThat(onDisk(small.remote().chunkCache().directory())).isLessThanOrEqualTo(limit);
        assertThat(stats.evictions()).isPositive();

        small.local().delete("snap-big");
        PullResult second = small.remote().pull("snap-big", small.local(), PullOptions.forHost("54.0.0"), PullListener.NONE);
        assertThat(second.status().chunksFromCache()).isPositive();
        assertThat(second.status().chunksFromCache() + second.status().chunksDownloaded()).isEqualTo(first.status().chunksDownloaded());
        assertThat(onDisk(small.remote().chunkCache().directory())).isLessThanOrEqualTo(limit);
        assertThat(SnapshotInspector.verify(second.snapshot()).ok()).isTrue();
    }

    @Test
    void aHostWithAnotherCpuIsRefusedUnlessItAllowsIt() throws IOException {
        Snapshot source = guest().commit(hostA.local(), "snap-1");
        hostA.remote().push(source, PushListener.NONE);
        CpuProfile amd = new CpuProfile("AuthenticAMD", "25", "33", "Other CPU", List.of("fpu", "sse2"));
        Host other = host("amd", settings(), CACHE_BYTES, amd);

        assertThatThrownBy(() -> other.remote().pull("snap-1", other.local(), PullOptions.forHost("54.0.0"), PullListener.NONE))
                .isInstanceOf(HostMismatchException.class)
                .hasMessageContaining("cpu.vendor").hasMessageContaining("cpu.model").hasMessageContaining("avx2")
                .satisfies(e -> assertThat(((HostMismatchException) e).mismatches()).extracting(HostMismatch::field)
                        .containsExactly(HostMismatch.CPU_VENDOR, HostMismatch.CPU_MODEL, HostMismatch.CPU_FLAGS));
        assertThatThrownBy(() -> other.remote().pull("snap-1", other.local(), PullOptions.forHost("55.0.0").allowingCpuMismatch(),
                PullListener.NONE)).isInstanceOf(HostMismatchException.class).hasMessageContaining("chvVersion");
        assertThat(other.local().list()).isEmpty();

        PullResult allowed = other.remote().pull("snap-1", other.local(), PullOptions.forHost("54.0.0").allowingCpuMismatch(),
                PullListener.NONE);
        assertThat(allowed.allowedMismatches()).hasSize(3);
        assertThat(SnapshotInspector.verify(allowed.snapshot()).ok()).isTrue();
    }

    @Test
    void theCpuRecordedAtSnapshotTimeIsTheOneCompared() throws IOException {
        String recorded = RemoteManifestCodec.JSON.writeValueAsString(
                new CpuProfile("AuthenticAMD", "25", "33", "Recorded CPU", List.of("fpu")));
        Snapshot source = guest().annotation(CpuProfile.ANNOTATION, recorded).commit(hostA.local(), "snap-1");
        hostA.remote().push(source, PushListener.NONE);
        assertThat(hostA.remote().describe("snap-1").orElseThrow().host().cpu().vendor()).isEqualTo("AuthenticAMD");
        assertThatThrownBy(() -> hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE))
                .isInstanceOf(HostMismatchException.class).hasMessageContaining("AuthenticAMD");
    }

    @Test
    void listDescribeAndDeleteSeeOnlyWhatHasAManifest() throws IOException {
        hostA.remote().push(guest().commit(hostA.local(), "snap-1"), PushListener.NONE);
        hostA.remote().push(guest().durableFile("data/notes.txt", 1000, 42).commit(hostA.local(), "snap-2"), PushListener.NONE);

        assertThat(hostB.remote().list()).extracting(RemoteSnapshotSummary::snapshotId).containsExactly("snap-1", "snap-2");
        RemoteManifest manifest = hostB.remote().describe("snap-2").orElseThrow();
        assertThat(manifest.file(SnapshotLayout.MEMORY_RANGES).orElseThrow().chunks()).anyMatch(ChunkRef::isHole);
        assertThat(manifest.host().chvVersion()).isEqualTo("54.0.0");
        assertThat(manifest.storedBytes()).isPositive();

        assertThat(hostB.remote().delete("snap-1")).isTrue();
        assertThat(hostB.remote().delete("snap-1")).isFalse();
        assertThat(hostA.remote().list()).extracting(RemoteSnapshotSummary::snapshotId).containsExactly("snap-2");
        assertThat(hostA.remote().describe("snap-1")).isEmpty();
        assertThatThrownBy(() -> hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE))
                .isInstanceOf(RemoteSnapshotNotFoundException.class);
    }

    @Test
    void aBackgroundPushIsPendingThenPushed() throws Exception {
        Snapshot source = guest().commit(hostA.local(), "snap-1");
        var future = hostA.remote().pushInBackground(source);
        assertThat(hostA.remote().pushStatus("snap-1")).isPresent();
        PushStatus done = future.get();
        assertThat(done.state()).isEqualTo(TransferState.DONE);
        assertThat(hostA.remote().pushStatus("snap-1").map(PushStatus::state)).contains(TransferState.DONE);
        assertThat(done.state().pushWord()).isEqualTo("pushed");
    }

    private ChunkHash firstMemoryChunk(String snapshotId) throws IOException {
        Optional<ChunkRef> data = hostA.remote().describe(snapshotId).orElseThrow().file(SnapshotLayout.MEMORY_RANGES).orElseThrow()
                .chunks().stream().filter(c -> !c.isHole()).findFirst();
        return data.orElseThrow().chunkHash().orElseThrow();
    }

    static List<Path> hiddenEntries(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(p -> p.getFileName().toString().startsWith(".")).toList();
        }
    }

    static long onDisk(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            long total = 0;
            for (Path entry : entries.toList()) {
                total += Files.size(entry);
            }
            return total;
        }
    }
}
