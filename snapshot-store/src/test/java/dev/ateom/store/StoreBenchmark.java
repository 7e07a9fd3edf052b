package dev.ateom.store;

import dev.ateom.snapshot.DiskUsage;
import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * Push and pull of a snapshot with a 256 MiB guest memory (half of it holes, the rest a mix of random, text-like
 * and zero pages) and a 256 MiB durable archive, beside uploading and downloading the same two files whole with
 * the same SDK client and the same s3proxy, in one run. Run with
 * {@code mvn -pl snapshot-store test -Dtest=StoreBenchmark -Dsurefire.excludedGroups=none}.
 */
@Tag("benchmark")
class StoreBenchmark {
    private static final int MIB = 1 << 20;
    private static final long SIZE = 256L * MIB;

    @TempDir
    Path work;

    @Test
    void pushAndPullBesideWholeFileTransfers() throws IOException {
        try (S3ProxyServer server = S3ProxyServer.start(work)) {
            server.createBucket("bench");
            StoreSettings settings = server.settings("bench", "fleet").withParallelism(StoreSettings.DEFAULT_PARALLELISM);
            SnapshotStore localA = SnapshotStore.open(Files.createDirectories(work.resolve("a")));
            SnapshotStore localB = SnapshotStore.open(Files.createDirectories(work.resolve("b")));
            Snapshot snapshot = guest().commit(localA, "bench-1");
            Path memory = snapshot.layout().memoryRanges();
            Path archive = snapshot.layout().durableArchive();
            long apparent = Files.size(memory) + Files.size(archive);
            long allocated = DiskUsage.of(memory).allocatedBytes() + Files.size(archive);

            List<String[]> rows = new ArrayList<>();
            try (RemoteSnapshotStore storeA = RemoteSnapshotStore.open(settings, work.resolve("a/chunks"), 1L << 30, StoreTestBase.HOST_CPU);
                 RemoteSnapshotStore storeB = RemoteSnapshotStore.open(settings, work.resolve("b/chunks"), 1L << 30, StoreTestBase.HOST_CPU);
                 S3Client client = S3ClientFactory.create(settings)) {
                long wholePut = time(() -> {
                    client.putObject(PutObjectRequest.builder().bucket("bench").key("whole/memory-ranges").build(), RequestBody.fromFile(memory));
                    client.putObject(PutObjectRequest.builder().bucket("bench").key("whole/durable.tar").build(), RequestBody.fromFile(archive));
                });
                PushStatus[] pushed = new PushStatus[1];
                long push = time(() -> pushed[0] = storeA.push(snapshot, PushListener.NONE));
                Snapshot again = guest().durableFile("data/small/file-3", 64 * 1024, 999).commit(localA, "bench-2");
                PushStatus[] repushed = new PushStatus[1];
                long push2 = time(() -> repushed[0] = storeA.push(again, PushListener.NONE));

                long wholeGet = time(() -> {
                    Path target = Files.createDirectories(work.resolve("whole"));
                    client.getObject(GetObjectRequest.builder().bucket("bench").key("whole/memory-ranges").build(),
                            ResponseTransformer.toFile(target.resolve("memory-ranges")));
                    client.getObject(GetObjectRequest.builder().bucket("bench").key("whole/durable.tar").build(),
                            ResponseTransformer.toFile(target.resolve("durable.tar")));
                });
                PullResult[] pulled = new PullResult[1];
                long pull = time(() -> pulled[0] = storeB.pull("bench-1", localB, PullOptions.forHost("54.0.0"), PullListener.NONE));
                localB.delete("bench-1");
                long pullCached = time(() -> storeB.pull("bench-1", localB, PullOptions.forHost("54.0.0"), PullListener.NONE));

                long wire = pushed[0].bytesUploaded();
                rows.add(row("upload whole files (2 PUTs)", wholePut, apparent, "1.00", mib(apparent) + " sent"));
                rows.add(row("push (chunked, zstd, parallel " + settings.parallelism() + ")", push, apparent, ratio(wholePut, push),
                        mib(wire) + " sent, " + pushed[0].chunksUploaded() + " chunks"));
                rows.add(row("push of a variation (dedup)", push2, apparent, ratio(wholePut, push2),
                        mib(repushed[0].bytesUploaded()) + " sent, " + mib(repushed[0].bytesDeduplicated()) + " deduplicated"));
                rows.add(row("download whole files (2 GETs)", wholeGet, apparent, "1.00", mib(apparent) + " received"));
                rows.add(row("pull (chunks, verify, commit)", pull, apparent, ratio(wholeGet, pull),
                        mib(pulled[0].status().bytesDownloaded()) + " received"));
                rows.add(row("pull again from the chunk cache", pullCached, apparent, ratio(wholeGet, pullCached), "0 received"));
            }
            StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
                    "snapshot-store benchmark: memory-ranges %d MiB (%d MiB allocated) + durable.tar %d MiB, s3proxy %s on loopback%n",
                    Files.size(memory) / MIB, DiskUsage.of(memory).allocatedBytes() / MIB, Files.size(archive) / MIB, server.version()));
            table.append(String.format(Locale.ROOT, "%-40s %9s %10s %14s  %s%n", "operation", "ms", "MiB/s", "speed vs whole", "bytes"));
            for (String[] row : rows) {
                table.append(String.format(Locale.ROOT, "%-40s %9s %10s %14s  %s%n", (Object[]) row));
            }
            table.append(String.format(Locale.ROOT, "(MiB/s over the %d MiB apparent size; allocated %d MiB; speed > 1.00 = faster than whole files)%n",
                    apparent / MIB, allocated / MIB));
            System.out.print(table);
            Files.writeString(Path.of(System.getProperty("ateom.repo.root", "."), "snapshot-store", "target", "store-benchmark.txt"),
                    table.toString());
        }
    }

    /** 256 MiB guest: every other 4 MiB region holds data, random or compressible in turn; the archive is half each. */
    private static GuestSnapshot guest() {
        GuestSnapshot guest = new GuestSnapshot().memoryBytes(SIZE);
        for (long region = 0; region < SIZE; region += 8L * MIB) {
            if (region % (16L * MIB) == 0) {
                guest.memory(region, 4 * MIB, region);
            } else {
                guest.compressibleMemory(region, 4 * MIB, region);
            }
        }
        for (int i = 0; i < 16; i++) {
            if (i % 2 == 0) {
                guest.durableFile("data/big-" + i + ".bin", 8 * MIB, 500 + i);
            } else {
                guest.compressibleDurableFile("data/big-" + i + ".txt", 8 * MIB, 500 + i);
            }
        }
        for (int i = 0; i < 2048; i++) {
            guest.compressibleDurableFile("data/small/file-" + i, 64 * 1024, 10_000 + i);
        }
        return guest;
    }

    private interface Step {
        void run() throws IOException;
    }

    private static long time(Step step) throws IOException {
        long start = System.nanoTime();
        step.run();
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static String[] row(String what, long millis, long bytes, String ratio, String detail) {
        return new String[] {what, Long.toString(millis), String.format(Locale.ROOT, "%.1f", bytes / (double) MIB / (millis / 1000.0)), ratio, detail};
    }

    private static String ratio(long baseline, long measured) {
        return String.format(Locale.ROOT, "%.2f", baseline / (double) measured);
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) MIB);
    }
}
