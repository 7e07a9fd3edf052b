package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ateom.snapshot.Snapshot;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpMethod;

/** The S3 server dies in the middle of a push; the push fails cleanly and a retry sends only what is missing. */
class PushFaultTest extends StoreTestBase implements StoreTestBase.OwnServer {
    private static final int MIB = 1 << 20;

    /** Counts chunk PUTs as they go on the wire (every attempt, retries included). */
    static final class ChunkPuts implements ExecutionInterceptor {
        final AtomicInteger count = new AtomicInteger();

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            if (context.httpRequest().method() == SdkHttpMethod.PUT && context.httpRequest().encodedPath().contains("/chunks/")) {
                count.incrementAndGet();
            }
        }
    }

    @Test
    void aServerStoppedMidPushFailsItWithoutAManifestAndTheRetryResendsNoStoredChunk() throws IOException {
        ChunkPuts puts = new ChunkPuts();
        Host pusher = host("pusher", settings().withInterceptor(puts), CACHE_BYTES, HOST_CPU);
        Snapshot snapshot = new GuestSnapshot().memoryBytes(24L * MIB).memory(0, 20 * MIB, 1).durableFile("d/f", 2 * MIB, 2)
                .commit(pusher.local(), "snap-1");

        AtomicBoolean stopped = new AtomicBoolean();
        assertThatThrownBy(() -> pusher.remote().push(snapshot, status -> {
            if (status.chunksUploaded() >= 2 && stopped.compareAndSet(false, true)) {
                server.stop(); // from the transfer thread: later uploads find no server
            }
        })).isInstanceOf(StoreUnavailableException.class).hasMessageContaining("snapshot-store-endpoint");
        assertThat(stopped).isTrue();
        assertThat(pusher.remote().pushStatus("snap-1").orElseThrow().state()).isEqualTo(TransferState.FAILED);

        server.restart();
        assertThat(raw.list("snapshots/")).isEmpty();
        // s3proxy's filesystem backend lists the temp file of an upload it was killed in as "<key>-<uuid>": not a chunk
        int storedBeforeRetry = raw.chunks().size();
        assertThat(storedBeforeRetry).isPositive();

        puts.count.set(0);
        PushStatus retried = pusher.remote().push(snapshot, PushListener.NONE);
        assertThat(retried.state()).isEqualTo(TransferState.DONE);
        int distinctChunks = raw.chunks().size();
        assertThat(retried.chunksDeduplicated()).isEqualTo(storedBeforeRetry);
        assertThat(puts.count.get()).isEqualTo(distinctChunks - storedBeforeRetry).isEqualTo(retried.chunksUploaded());
        assertThat(raw.list("snapshots/")).hasSize(1);
        assertThat(hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE).snapshot().id())
                .isEqualTo("snap-1");
    }
}
