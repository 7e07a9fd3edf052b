package dev.ateom.store;

import dev.ateom.snapshot.DiskUsage;
import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotStore;
import dev.ateom.snapshot.TreeDeleter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * Push and pull of a snapshot with a 256 MiB guest memory (40% of its 2 MiB pieces holes, the rest random or
 * compressible pages with some zero pages among them) and a 256 MiB durable archive, beside uploading and downloading
 * the same two files whole with the same SDK client and the same s3proxy, in one run; then a push after a small
 * change (dedup) and a pull from a warm chunk cache. Each row also shows the CPU the client JVM and the s3proxy
 * process spent on it: on a shared build host the wall time follows the CPU work more than anything else. It runs
 * twice: with s3proxy on loopback (bytes cost nothing, CPU decides) and with s3proxy in a network namespace behind a
 * veth link the kernel shapes to {@code -Dateom.bench.linkMbit} (default 1000) each way, as a store sits behind a
 * network ({@link ShapedLink}; skipped with a message where that cannot be set up). Run with
 * {@code mvn -pl snapshot-store test -Dtest=StoreBenchmark -Dsurefire.excludedGroups=none}; both tables (markdown)
 * are printed and written to {@code snapshot-store/target/store-benchmark.md}.
 */
@Tag("benchmark")
class StoreBenchmark {
    private static final int MIB = 1 << 20;
    private static final long SIZE = 256L * MIB;

    @TempDir
    Path work;

    private static final int DEFAULT_ROUNDS = 3;
    /** A store reached over a 1 Gbit/s link, as from a host in a cloud region or a rack. */
    private static final int DEFAULT_LINK_MBIT = 1000;

    /** {@code ratios}: the speed ratio of every round, in round order. */
    private record Row(String operation, long millis, String ratio, String ratios, long clientCpuMillis, long serverCpuMillis, String cpuRatio,
                       String bytes) {
    }

    /** Wall time and the CPU of both sides for one step. */
    private static final class Meter {
        private final S3ProxyServer server;

        Meter(S3ProxyServer server) {
            this.server = server;
        }

        long[] measure(Step step) throws IOException {
            long client = clientCpu();
            long proxy = server.cpuTime().toMillis();
            long start = System.nanoTime();
            step.run();
            long millis = (System.nanoTime() - start) / 1_000_000;
            return new long[] {millis, clientCpu() - client, server.cpuTime().toMillis() - proxy};
        }

        private static long clientCpu() {
            return ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO).toMillis();
        }
    }

    @Test
    void pushAndPullBesideWholeFileTransfers() throws IOException {
        int rounds = Integer.getInteger("ateom.bench.rounds", DEFAULT_ROUNDS);
        int linkMbit = Integer.getInteger("ateom.bench.linkMbit", DEFAULT_LINK_MBIT);
        SnapshotStore localA = SnapshotStore.open(Files.createDirectories(work.resolve("a")));
        Snapshot snapshot = guest().commit(localA, "bench-1");
        Snapshot again = guest().durableFile("data/small/file-3", 64 * 1024, 999).commit(localA, "bench-2");
        StringBuilder tables = new StringBuilder();
        try (S3ProxyServer server = S3ProxyServer.start(work)) {
            tables.append(measure(server, "on loopback", rounds, snapshot, again));
        }
        tables.append('\n').append(shaped(linkMbit, rounds, snapshot, again));
        System.out.print(tables);
        Files.writeString(Path.of(System.getProperty("ateom.repo.root", "."), "snapshot-store", "target", "store-benchmark.md"), tables);
    }

    /**
     * The same rounds with s3proxy in a network namespace of its own behind a veth link shaped to {@code mbit} in both
     * directions, as a store is reached over a network; skipped, saying why, where the kernel cannot shape.
     */
    private String shaped(int mbit, int rounds, Snapshot snapshot, Snapshot again) throws IOException {
        ShapedLink link;
        try {
            link = ShapedLink.create(mbit);
        } catch (IOException e) {
            return "shaped link skipped (needs root, ip netns, veth and tc tbf): " + e.getMessage() + "\n";
        }
        try (link; S3ProxyServer server = S3ProxyServer.startIn(work, link.namespace(), link.serverAddress())) {
            String table = measure(server, "in its own network namespace behind a veth link shaped to " + mbit + " Mbit/s each way (tc tbf)",
                    rounds, snapshot, again);
            System.out.println("shaped link, tc -s qdisc of the host end and the namespace end:\n" + link.statistics());
            return table;
        }
    }

    private String measure(S3ProxyServer server, String where, int rounds, Snapshot snapshot, Snapshot again) throws IOException {
        server.createBucket("bench");
        Path memory = snapshot.layout().memoryRanges();
        Path archive = snapshot.layout().durableArchive();
        long apparent = Files.size(memory) + Files.size(archive);
        long allocated = DiskUsage.of(memory).allocatedBytes() + Files.size(archive);
        Meter meter = new Meter(server);
        List<List<Row>> measured = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            measured.add(round(server, meter, round, snapshot, again, apparent));
        }
        return table(median(measured), server.version(), where, Files.size(memory), DiskUsage.of(memory).allocatedBytes(),
                Files.size(archive), apparent, allocated, StoreSettings.DEFAULT_PARALLELISM, rounds);
    }

    /**
     * One round on its own prefix of the bucket, local store and chunk caches, so its push is a first push and its pull
     * a cold one; the snapshots themselves are the same in every round.
     */
    /**
     * The baseline's client: the SDK as it is by default over http (whole files streamed as signed aws-chunked bodies,
     * which s3proxy decodes; it refuses a fixed-length body this large), checksums only when required, as the store's.
     */
    private static S3Client wholeFileClient(S3ProxyServer server) {
        return S3Client.builder().httpClientBuilder(UrlConnectionHttpClient.builder()).endpointOverride(server.endpoint())
                .region(Region.US_EAST_1).forcePathStyle(true).credentialsProvider(server.credentials())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build();
    }

    private List<Row> round(S3ProxyServer server, Meter meter, int round, Snapshot snapshot, Snapshot again, long apparent) throws IOException {
        Path dir = Files.createDirectories(work.resolve("round-" + round));
        StoreSettings settings = server.settings("bench", "fleet-" + round).withParallelism(StoreSettings.DEFAULT_PARALLELISM);
        SnapshotStore localB = SnapshotStore.open(Files.createDirectories(dir.resolve("b")));
        Path memory = snapshot.layout().memoryRanges();
        Path archive = snapshot.layout().durableArchive();
        String whole = "whole-" + round + "/";
        List<Row> rows = new ArrayList<>();
        try (RemoteSnapshotStore storeA = RemoteSnapshotStore.open(settings, dir.resolve("a-chunks"), 1L << 30, StoreTestBase.HOST_CPU);
             RemoteSnapshotStore storeB = RemoteSnapshotStore.open(settings, dir.resolve("b-chunks"), 1L << 30, StoreTestBase.HOST_CPU);
             S3Client client = wholeFileClient(server)) {
            long[] wholePut = meter.measure(() -> {
                client.putObject(PutObjectRequest.builder().bucket("bench").key(whole + "memory-ranges").build(), RequestBody.fromFile(memory));
                client.putObject(PutObjectRequest.builder().bucket("bench").key(whole + "durable.tar").build(), RequestBody.fromFile(archive));
            });
            PushStatus[] pushed = new PushStatus[1];
            long[] push = meter.measure(() -> pushed[0] = storeA.push(snapshot, PushListener.NONE));
            PushStatus[] repushed = new PushStatus[1];
            long[] push2 = meter.measure(() -> repushed[0] = storeA.push(again, PushListener.NONE));

            Path target = Files.createDirectories(dir.resolve("whole"));
            long[] wholeGet = meter.measure(() -> {
                client.getObject(GetObjectRequest.builder().bucket("bench").key(whole + "memory-ranges").build(),
                        ResponseTransformer.toFile(target.resolve("memory-ranges")));
                client.getObject(GetObjectRequest.builder().bucket("bench").key(whole + "durable.tar").build(),
                        ResponseTransformer.toFile(target.resolve("durable.tar")));
            });
            PullResult[] pulled = new PullResult[1];
            long[] pull = meter.measure(() -> pulled[0] = storeB.pull(snapshot.id(), localB, PullOptions.forHost("54.0.0"), PullListener.NONE));
            localB.delete(snapshot.id());
            long[] pullCached = meter.measure(() -> storeB.pull(snapshot.id(), localB, PullOptions.forHost("54.0.0"), PullListener.NONE));

            rows.add(row("upload whole files (2 PUTs)", wholePut, wholePut, mib(apparent) + " sent"));
            rows.add(row("push (chunked, zstd, parallel " + settings.parallelism() + ")", push, wholePut,
                    mib(pushed[0].bytesUploaded()) + " sent, " + pushed[0].chunksUploaded() + " chunks"));
            rows.add(row("push after a small change (dedup)", push2, wholePut,
                    mib(repushed[0].bytesUploaded()) + " sent, " + mib(repushed[0].bytesDeduplicated()) + " deduplicated"));
            rows.add(row("download whole files (2 GETs)", wholeGet, wholeGet, mib(apparent) + " received"));
            rows.add(row("pull (chunks, verify, commit)", pull, wholeGet,
                    mib(pulled[0].status().bytesDownloaded()) + " received, " + pulled[0].status().chunksDownloaded() + " chunks"));
            rows.add(row("pull from a warm chunk cache", pullCached, wholeGet, "0 received"));
        }
        TreeDeleter.delete(dir); // 1.5 GB a round: the next round starts on an emptier page cache
        return rows;
    }

    /** Per step, the round with the median speed ratio (so each printed row is one round's figures, ratios from that same round). */
    private static List<Row> median(List<List<Row>> rounds) {
        List<Row> rows = new ArrayList<>();
        for (int step = 0; step < rounds.getFirst().size(); step++) {
            int index = step;
            List<Row> ofStep = new ArrayList<>(rounds.stream().map(round -> round.get(index)).toList());
            ofStep.sort(Comparator.comparingDouble(row -> Double.parseDouble(row.ratio())));
            Row middle = ofStep.get(ofStep.size() / 2);
            String all = ofStep.size() == 1 ? middle.ratio()
                    : rounds.stream().map(round -> round.get(index).ratio()).reduce((a, b) -> a + " " + b).orElseThrow();
            rows.add(new Row(middle.operation(), middle.millis(), middle.ratio(), all, middle.clientCpuMillis(), middle.serverCpuMillis(),
                    middle.cpuRatio(), middle.bytes()));
        }
        return rows;
    }

    private static String table(List<Row> rows, String serverVersion, String where, long memory, long memoryAllocated, long archive, long apparent,
                                long allocated, int parallelism, int rounds) {
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
                "snapshot-store benchmark: memory-ranges %d MiB (%d MiB allocated) + durable.tar %d MiB, s3proxy %s %s, "
                        + "parallelism %d, %d cores, load average %.1f at the end; %d rounds, each row the round with the median speed ratio%n%n",
                memory / MIB, memoryAllocated / MIB, archive / MIB, serverVersion, where, parallelism, Runtime.getRuntime().availableProcessors(),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), rounds));
        table.append("| operation | ms | MiB/s | speed vs whole | every round | client CPU ms | s3proxy CPU ms | CPU vs whole | bytes |\n");
        table.append("|---|---:|---:|---:|---|---:|---:|---:|---|\n");
        for (Row row : rows) {
            table.append(String.format(Locale.ROOT, "| %s | %d | %.1f | %s | %s | %d | %d | %s | %s |%n", row.operation(), row.millis(),
                    apparent / (double) MIB / (row.millis() / 1000.0), row.ratio(), row.ratios(), row.clientCpuMillis(), row.serverCpuMillis(), row.cpuRatio(),
                    row.bytes()));
        }
        table.append(String.format(Locale.ROOT, "%n(MiB/s over the %d MiB apparent size; %d MiB allocated; speed > 1.00 = faster than the whole"
                + " files; CPU = process CPU time of this JVM and of s3proxy during the step; CPU vs whole = (client + s3proxy CPU of the whole-file"
                + " transfer) / (the same of the step), > 1.00 = cheaper, steadier than wall time on a shared host)%n", apparent / MIB, allocated / MIB));
        return table.toString();
    }

    /** 256 MiB guest: of every five 2 MiB pieces two are holes; the others are random or compressible, each with a zero tail. */
    private static GuestSnapshot guest() {
        GuestSnapshot guest = new GuestSnapshot().memoryBytes(SIZE);
        int piece = 2 * MIB;
        for (int index = 0; index < SIZE / piece; index++) {
            if (index % 5 == 1 || index % 5 == 3) {
                continue;
            }
            long offset = (long) index * piece;
            int data = piece - 64 * 4096; // 64 zero pages at the end of each data piece
            if (index % 2 == 0) {
                guest.memory(offset, data, offset);
            } else {
                guest.compressibleMemory(offset, data, offset);
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

    private static Row row(String what, long[] measured, long[] baseline, String bytes) {
        String ratio = String.format(Locale.ROOT, "%.2f", baseline[0] / (double) measured[0]);
        return new Row(what, measured[0], ratio, ratio, measured[1], measured[2],
                String.format(Locale.ROOT, "%.2f", (baseline[1] + baseline[2]) / (double) Math.max(1, measured[1] + measured[2])), bytes);
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) MIB);
    }
}
