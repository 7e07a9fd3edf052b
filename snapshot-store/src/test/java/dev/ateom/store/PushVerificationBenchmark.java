package dev.ateom.store;

import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * What a push's read-back costs: the same snapshot (48 MiB of random guest memory, a 24 MiB durable archive: every
 * chunk uploaded) pushed to a fresh prefix of s3proxy on loopback with verification on and off, alternately, in one
 * run; a table of the median push time of each, their ratio, and the requests each sent. Run with
 * {@code mvn -pl snapshot-store test -Dtest=PushVerificationBenchmark -Dsurefire.excludedGroups=none}.
 */
@Tag("benchmark")
class PushVerificationBenchmark {
    private static final int MIB = 1 << 20;
    private static final int ROUNDS = Integer.getInteger("ateom.bench.rounds", 5);

    @TempDir
    Path work;

    /** Requests the client sent, by method. */
    private static final class Requests implements ExecutionInterceptor {
        final AtomicInteger heads = new AtomicInteger();
        final AtomicInteger gets = new AtomicInteger();
        final AtomicInteger puts = new AtomicInteger();

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            switch (context.httpRequest().method()) {
                case HEAD -> heads.incrementAndGet();
                case GET -> gets.incrementAndGet();
                case PUT -> puts.incrementAndGet();
                default -> { }
            }
        }

        String describe() {
            return puts + " PUT, " + heads + " HEAD, " + gets + " GET";
        }
    }

    @Test
    void pushWithAndWithoutReadingBackWhatItWrote() throws IOException {
        try (S3ProxyServer server = S3ProxyServer.start(work)) {
            server.createBucket("bench");
            SnapshotStore local = SnapshotStore.open(Files.createDirectories(work.resolve("local")));
            GuestSnapshot guest = new GuestSnapshot().memoryBytes(64L * MIB).memory(0, 48 * MIB, 1).durableFile("data/blob", 24 * MIB, 2);
            Snapshot snapshot = guest.commit(local, "bench-1");
            List<Long> on = new ArrayList<>();
            List<Long> off = new ArrayList<>();
            String onRequests = "";
            String offRequests = "";
            for (int round = 0; round < ROUNDS; round++) {
                for (boolean verify : new boolean[] {round % 2 == 0, round % 2 != 0}) {
                    Requests requests = new Requests();
                    StoreSettings settings = server.settings("bench", "r" + round + (verify ? "-on" : "-off"))
                            .withParallelism(StoreSettings.DEFAULT_PARALLELISM).withPushVerification(verify).withInterceptor(requests);
                    try (RemoteSnapshotStore store = RemoteSnapshotStore.open(settings, work.resolve("chunks-" + round + verify), 0,
                            StoreTestBase.HOST_CPU)) {
                        long started = System.nanoTime();
                        store.push(snapshot, PushListener.NONE);
                        long millis = (System.nanoTime() - started) / 1_000_000;
                        (verify ? on : off).add(millis);
                        if (verify) {
                            onRequests = requests.describe();
                        } else {
                            offRequests = requests.describe();
                        }
                    }
                }
            }
            long medianOn = median(on);
            long medianOff = median(off);
            String table = String.format(Locale.ROOT, """
                    | push of a 64 MiB guest (48 MiB data) + 24 MiB archive, s3proxy on loopback | median ms (every round) | requests |
                    |---|---:|---|
                    | without read-back | %d %s | %s |
                    | with read-back (HEAD per uploaded chunk, %d chunks read back, manifest read back) | %d %s | %s |
                    | ratio with / without | %.2f | |
                    """, medianOff, off, offRequests, Pusher.SAMPLED_CHUNKS, medianOn, on, onRequests, (double) medianOn / medianOff);
            System.out.println(table);
            Files.writeString(Path.of("target/push-verification-benchmark.md"), table);
        }
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
