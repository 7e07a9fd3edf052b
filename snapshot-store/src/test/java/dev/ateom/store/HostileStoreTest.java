package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.github.luben.zstd.ZstdOutputStream;
import com.sun.management.ThreadMXBean;
import com.sun.net.httpserver.HttpExchange;
import dev.ateom.snapshot.SnapshotLayout;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpMethod;

/**
 * A store that attacks: the bucket is writable by someone else ({@link Attacker} rewrites a pushed snapshot's manifest
 * and plants chunks over S3) or the server itself misbehaves ({@link ConditionalPutProxy#answerInstead}). Each pull
 * must fail with a problem that says what is wrong, within bounded memory (allocation counted across the JVM's threads),
 * disk (nothing of the snapshot is left, the chunk cache stays within its limit) and time.
 */
class HostileStoreTest extends StoreTestBase {
    private static final int MIB = 1 << 20;
    private static final long TIME_LIMIT_MILLIS = 30_000;
    private static final long ALLOCATION_LIMIT = 256L * MIB;

    private ConditionalPutProxy front;
    private boolean throughFront;
    private final AtomicInteger chunkGets = new AtomicInteger();

    /** Counts the victim's chunk GETs, as sent. */
    private final ExecutionInterceptor chunkGetCounter = new ExecutionInterceptor() {
        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            if (context.httpRequest().method() == SdkHttpMethod.GET && context.httpRequest().encodedPath().contains("/chunks/")) {
                chunkGets.incrementAndGet();
            }
        }
    };

    @BeforeEach
    void pushAndStartTheFront() throws IOException {
        hostA.remote().push(PushPullTest.guest().commit(hostA.local(), "snap-1"), PushListener.NONE);
        front = new ConditionalPutProxy(server.endpoint());
    }

    /** The victim reaches the store through the front, which answers some requests itself. */
    private void misbehave(ConditionalPutProxy.Answer answer) {
        front.answerInstead(answer);
        throughFront = true;
    }

    @AfterEach
    void stopTheFront() {
        front.close();
    }

    @Test
    void aManifestNamingAFileOutsideTheSnapshotDirIsRefusedBeforeAnythingIsWritten() throws IOException {
        Attacker attacker = new Attacker(raw, "snap-1");
        attacker.remoteFile(SnapshotLayout.CHV_CONFIG).put("path", "../../escape");
        attacker.publish();

        assertRefusedLeavingNothing(RemoteFormatException.class, "'../../escape'");
        assertThat(chunkGets).hasValue(0);
        assertNoFileNamed("escape");
    }

    @Test
    void aDurableArchiveWithAnEntryOutsideItsDirIsRefusedAndNothingOfItIsLeft() throws IOException {
        Attacker attacker = new Attacker(raw, "snap-1").replace(SnapshotLayout.DURABLE_ARCHIVE, tar("../escape", "owned"));
        attacker.manifest().with("local").with("durableArchive").put("entries", 1);
        attacker.publish();

        assertRefusedLeavingNothing(PulledSnapshotInvalidException.class, "../escape");
        assertNoFileNamed("escape");
    }

    @Test
    void aFileClaimingATerabyteIsRefusedBeforeAnyChunkIsFetched() throws IOException {
        long huge = hugeSize();
        Attacker attacker = new Attacker(raw, "snap-1").size(SnapshotLayout.MEMORY_RANGES, huge);
        Attacker.piece(attacker.pieces(SnapshotLayout.MEMORY_RANGES), 0, huge, null);
        attacker.publish();

        assertRefusedLeavingNothing(SnapshotTooLargeException.class, "is not pulled: its files are");
        assertThat(chunkGets).hasValue(0);
    }

    @Test
    void oneChunkRepeatedToATerabyteOfDurableDataIsRefusedBeforeAnyChunkIsFetched() throws IOException {
        long huge = hugeSize() / (4 * MIB) * (4 * MIB);
        byte[] plain = new byte[4 * MIB];
        ThreadLocalRandom.current().nextBytes(plain);
        Attacker attacker = new Attacker(raw, "snap-1").size(SnapshotLayout.DURABLE_ARCHIVE, huge);
        String sha = attacker.plant(plain, ChunkCodec.compress(plain, plain.length));
        ArrayNode pieces = attacker.pieces(SnapshotLayout.DURABLE_ARCHIVE);
        for (long offset = 0; offset < huge; offset += plain.length) {
            Attacker.piece(pieces, offset, plain.length, sha);
        }
        attacker.publish();

        assertRefusedLeavingNothing(SnapshotTooLargeException.class, "stored data");
        assertThat(chunkGets).hasValue(0);
    }

    @Test
    void aManifestAsLargeAsABillionChunksIsRefusedBeforeItsBodyIsRead() throws IOException {
        long billionPieces = 1_000_000_000L * 110;
        misbehave((exchange, body) -> {
            if (!exchange.getRequestURI().getRawPath().endsWith("/manifest.json")) {
                return false;
            }
            exchange.sendResponseHeaders(200, billionPieces);
            exchange.getResponseBody().write("{\"formatVersion\":1,\"files\":[".getBytes(StandardCharsets.US_ASCII));
            exchange.getResponseBody().flush();
            exchange.close();
            return true;
        });
        assertRefusedLeavingNothing(RemoteFormatException.class, "announces " + billionPieces);
        assertThat(chunkGets).hasValue(0);
    }

    @Test
    void aZstdBombIsRefusedWithoutBeingDecompressed() throws IOException {
        // a frame that declares the manifest's length but has 256 MiB of zeros after it, in a second frame: small enough
        // to pass as a frame of a 1 MiB chunk
        byte[] plain = "every chunk is checked against its hash. ".repeat(MIB / 41 + 1).substring(0, MIB).getBytes(StandardCharsets.US_ASCII);
        byte[] bomb = concat(ChunkCodec.compress(plain, plain.length), zerosFrame(256L * MIB));
        assertThat((long) bomb.length).isLessThan(ChunkCodec.maxFrameBytes(plain.length));
        Attacker attacker = new Attacker(raw, "snap-1").replace(SnapshotLayout.DURABLE_ARCHIVE, plain);
        attacker.plant(plain, bomb);
        attacker.publish();
        assertRefusedLeavingNothing(ChunkCorruptException.class, "is corrupt");

        // a frame that does not declare its size at all
        Attacker unsized = new Attacker(raw, "snap-1");
        unsized.plant(plain, zerosFrame(256L * MIB));
        unsized.publish();
        assertRefusedLeavingNothing(ChunkCorruptException.class, "its frame declares -1 bytes");
    }

    @Test
    void aChunkListedAtOverlappingOffsetsIsRefusedBeforeAnythingIsWritten() throws IOException {
        Attacker attacker = new Attacker(raw, "snap-1");
        ArrayNode original = (ArrayNode) attacker.remoteFile(SnapshotLayout.MEMORY_RANGES).get("chunks").deepCopy();
        String sha = original.findValuesAsText("sha256").getFirst();
        long size = attacker.remoteFile(SnapshotLayout.MEMORY_RANGES).get("size").asLong();
        ArrayNode pieces = attacker.pieces(SnapshotLayout.MEMORY_RANGES);
        Attacker.piece(pieces, 0, 2 * MIB, sha);
        Attacker.piece(pieces, MIB, 2 * MIB, sha);
        Attacker.piece(pieces, 3 * MIB, size - 3 * MIB, null);
        attacker.publish();

        assertRefusedLeavingNothing(RemoteFormatException.class, "invalid piece at offset " + MIB);
        assertThat(chunkGets).hasValue(0);
    }

    @Test
    void aStoreThatAnswersSlowlyForeverFailsThePullInBoundedTime() throws IOException {
        misbehave((exchange, body) -> {
            if (!exchange.getRequestURI().getRawPath().contains("/chunks/") || !exchange.getRequestMethod().equals("GET")) {
                return false;
            }
            trickle(exchange);
            return true;
        });
        long started = System.nanoTime();
        assertRefusedLeavingNothing(StoreUnavailableException.class, "did not finish answering in time", Duration.ofSeconds(1));
        assertThat(chunkGets.get()).isPositive();
        System.out.printf("a store answering one byte per 100 ms failed the pull after %d ms%n", (System.nanoTime() - started) / 1_000_000);
    }

    /** One byte every 100 ms of a 64-byte body (no chunk's frame can be smaller), for at most a minute or until the client hangs up. */
    private static void trickle(HttpExchange exchange) throws IOException {
        exchange.sendResponseHeaders(200, 64);
        try (OutputStream out = exchange.getResponseBody()) {
            for (int i = 0; i < 600; i++) {
                out.write(0);
                out.flush();
                Thread.sleep(100);
            }
        } catch (IOException hungUp) {
            // the client gave up: the point
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Pulls snap-1 on a host that reaches the store through the front and asserts the pull is refused with {@code type}
     * naming {@code words}, within the time and allocation limits, leaving no snapshot, no staging dir, no file beyond
     * the chunk cache's limit.
     */
    private void assertRefusedLeavingNothing(Class<? extends StoreException> type, String words) throws IOException {
        assertRefusedLeavingNothing(type, words, Duration.ofSeconds(20));
    }

    private void assertRefusedLeavingNothing(Class<? extends StoreException> type, String words, Duration requestTimeout) throws IOException {
        StoreSettings settings = settings().withRequestTimeout(requestTimeout).withInterceptor(chunkGetCounter);
        Host victim = host("victim-" + ThreadLocalRandom.current().nextInt(1 << 20),
                throughFront ? settings.withEndpoint(front.endpoint().toString()) : settings, CACHE_BYTES, HOST_CPU);
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long allocatedBefore = threads.getTotalThreadAllocatedBytes();
        long started = System.nanoTime();
        assertThatThrownBy(() -> victim.remote().pull("snap-1", victim.local(), PullOptions.forHost("54.0.0"), PullListener.NONE))
                .isInstanceOf(type).hasMessageContaining(words);
        long millis = (System.nanoTime() - started) / 1_000_000;
        long allocated = threads.getTotalThreadAllocatedBytes() - allocatedBefore;
        System.out.printf("%s: refused in %d ms, %d MiB allocated%n", type.getSimpleName(), millis, allocated / MIB);
        assertThat(millis).as("time to refuse").isLessThan(TIME_LIMIT_MILLIS);
        assertThat(allocated).as("bytes allocated while refusing").isLessThan(ALLOCATION_LIMIT);
        assertThat(victim.local().list()).isEmpty();
        assertThat(PushPullTest.hiddenEntries(victim.local().snapshotsDirectory())).as("staging dirs").isEmpty();
        assertThat(PushPullTest.onDisk(victim.remote().chunkCache().directory())).isLessThanOrEqualTo(CACHE_BYTES);
    }

    /** A claimed size that no test machine's disk holds: a terabyte, or twice the free space if that is more. */
    private long hugeSize() throws IOException {
        return Math.max(1L << 40, 2 * Files.getFileStore(work).getUsableSpace());
    }

    /**
     * Every host's dirs are inside {@code work}, a few levels down, so an escaping entry lands inside it or, at worst,
     * beside it. Only {@code work} is walked: the temp dir above it is shared with every other process on the machine
     * (a walk of it failed on a dir another test removed meanwhile).
     */
    private void assertNoFileNamed(String name) throws IOException {
        try (Stream<Path> all = Files.walk(work)) {
            assertThat(all.filter(p -> p.getFileName() != null && p.getFileName().toString().equals(name)).toList()).isEmpty();
        }
        assertThat(work.resolveSibling(name)).doesNotExist();
    }

    /** An uncompressed tar of one regular file, as a hostile host could have archived it. */
    static byte[] tar(String name, String content) {
        byte[] data = content.getBytes(StandardCharsets.UTF_8);
        byte[] header = new byte[512];
        put(header, 0, name);
        put(header, 100, "0000644");
        put(header, 108, "0000000");
        put(header, 116, "0000000");
        put(header, 124, String.format("%011o", data.length));
        put(header, 136, String.format("%011o", 1_700_000_000L));
        Arrays.fill(header, 148, 156, (byte) ' ');
        header[156] = '0';
        put(header, 257, "ustar");
        put(header, 263, "00");
        int sum = 0;
        for (byte b : header) {
            sum += b & 0xff;
        }
        put(header, 148, String.format("%06o", sum));
        header[155] = ' ';
        byte[] archive = new byte[512 + ((data.length + 511) / 512) * 512 + 1024];
        System.arraycopy(header, 0, archive, 0, 512);
        System.arraycopy(data, 0, archive, 512, data.length);
        return archive;
    }

    private static void put(byte[] header, int at, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, header, at, bytes.length);
    }

    /** One zstd frame of {@code bytes} zeros, written as a stream: it does not declare its size (about 1 byte per KiB). */
    private static byte[] zerosFrame(long bytes) throws IOException {
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        byte[] zeros = new byte[MIB];
        try (ZstdOutputStream out = new ZstdOutputStream(frame)) {
            for (long written = 0; written < bytes; written += zeros.length) {
                out.write(zeros);
            }
        }
        return frame.toByteArray();
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }
}
