package dev.ateom.store;

import dev.ateom.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * One s3proxy for all store tests of the JVM (a test class that kills it gets its own: {@link OwnServer}; a class that
 * runs per server kind sets {@link #server} per kind, see {@link StoreServersTest}), a fresh bucket per test, and two
 * "hosts" (state dirs with their own chunk caches) that share it.
 */
abstract class StoreTestBase {
    /** For test classes that stop or restart the server. */
    interface OwnServer {
    }

    static final long CACHE_BYTES = 256L << 20;
    static final CpuProfile HOST_CPU = new CpuProfile("GenuineIntel", "6", "85", "Test CPU", List.of("fpu", "sse2", "avx2"));
    private static final AtomicInteger BUCKETS = new AtomicInteger();

    @TempDir
    static Path serverDir;
    static TestS3Server server;
    private static S3ProxyServer shared;
    private static boolean ownServer;

    @TempDir
    Path work;
    String bucket;
    TestBucket raw;
    Host hostA;
    Host hostB;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    /** A host: its local snapshot store and its client of the shared store. */
    record Host(Path stateDir, SnapshotStore local, RemoteSnapshotStore remote) {
    }

    @BeforeAll
    static void startServer(TestInfo info) throws IOException {
        ownServer = OwnServer.class.isAssignableFrom(info.getTestClass().orElseThrow());
        server = ownServer ? S3ProxyServer.start(serverDir) : shared();
    }

    @AfterAll
    static void stopServer() throws IOException {
        if (ownServer) {
            server.close();
        }
    }

    private static synchronized S3ProxyServer shared() throws IOException {
        if (shared == null) {
            Path dir = Files.createTempDirectory("ateom-store-tests-");
            S3ProxyServer started = S3ProxyServer.start(dir);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } finally {
                    S3ProxyServer.deleteTree(dir);
                }
            }));
            shared = started;
        }
        return shared;
    }

    @BeforeEach
    void createBucketAndHosts() throws IOException {
        bucket = "bucket-" + BUCKETS.incrementAndGet();
        server.createBucket(bucket);
        raw = new TestBucket(server, bucket, "fleet");
        hostA = host("a", settings(), CACHE_BYTES, HOST_CPU);
        hostB = host("b", settings(), CACHE_BYTES, HOST_CPU);
    }

    @AfterEach
    void closeHosts() throws Exception {
        for (AutoCloseable closeable : closeables.reversed()) {
            closeable.close();
        }
        raw.close();
    }

    StoreSettings settings() throws StoreConfigException {
        return server.settings(bucket, "fleet");
    }

    Host host(String name, StoreSettings settings, long cacheBytes, CpuProfile cpu) throws IOException {
        Path state = Files.createDirectories(work.resolve(name));
        RemoteSnapshotStore remote = RemoteSnapshotStore.open(settings, state.resolve("chunks"), cacheBytes, cpu);
        closeables.add(remote);
        return new Host(state, SnapshotStore.open(state), remote);
    }
}
