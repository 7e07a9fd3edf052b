package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotInspector;
import dev.ateom.snapshot.SnapshotLayout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A store that does not keep what it is sent: s3rver (which checks no body) behind a front that rewrites upload bodies
 * the way a broken store or gateway would. A damaged upload is never reported pushed, nothing damaged stays in the
 * store, and the start-up probe finds such a store.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(names = "S3RVER")
class DamagedUploadsTest extends PerServerTestBase {
    /** What a store that keeps the aws-chunked framing adds to a body. */
    private static final byte[] FRAMING = "\r\n0;chunk-signature=0123456789abcdef\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private ConditionalPutProxy front;
    private Host damaged;

    @BeforeEach
    void startTheFront() throws IOException {
        front = new ConditionalPutProxy(server.endpoint());
        damaged = host("damaged", settings().withEndpoint(front.endpoint().toString()), CACHE_BYTES, HOST_CPU);
    }

    @AfterEach
    void stopTheFront() {
        front.close();
    }

    @Test
    void chunksKeptLongerThanSentFailThePushAndNoneStaysInTheStore() throws IOException {
        front.rewriteUploads((path, body) -> path.contains("/chunks/") ? concat(body, FRAMING) : body);
        Snapshot snapshot = PushPullTest.guest().commit(damaged.local(), "snap-1");

        assertThatThrownBy(() -> damaged.remote().push(snapshot, PushListener.NONE)).isInstanceOf(StoreDamagesDataException.class)
                .hasMessageContaining("did not keep chunk").hasMessageContaining("bytes were sent");
        assertThat(damaged.remote().pushStatus("snap-1").orElseThrow().state()).isEqualTo(TransferState.FAILED);
        assertThat(raw.list("snapshots/")).as("no manifest: the snapshot is not in the store").isEmpty();
        for (S3Object chunk : raw.chunks()) {
            String hash = chunk.key().substring(chunk.key().lastIndexOf('/') + 1);
            byte[] stored = raw.get("chunks/" + hash);
            assertThat(Arrays.equals(Arrays.copyOfRange(stored, Math.max(0, stored.length - FRAMING.length), stored.length), FRAMING))
                    .as("chunk " + hash + " kept with the framing").isFalse();
        }

        front.rewriteUploads((path, body) -> body); // the store is fixed: the retry uploads anew what was damaged
        assertThat(damaged.remote().push(snapshot, PushListener.NONE).state()).isEqualTo(TransferState.DONE);
        Snapshot copy = hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE).snapshot();
        assertThat(SnapshotInspector.verify(copy).problems()).isEmpty();
    }

    @Test
    void chunksDamagedInPlaceAreFoundByTheSampledReadBackAndDeleted() throws IOException {
        front.rewriteUploads((path, body) -> path.contains("/chunks/") ? flipMiddleByte(body) : body);
        Snapshot snapshot = PushPullTest.guest().commit(damaged.local(), "snap-1");

        assertThatThrownBy(() -> damaged.remote().push(snapshot, PushListener.NONE)).isInstanceOf(StoreDamagesDataException.class)
                .hasMessageContaining("is corrupt").hasMessageContaining("deleted it");
        assertThat(raw.list("snapshots/")).isEmpty();
        assertThat(raw.chunks()).as("the sampled chunks were deleted").hasSizeLessThan(damaged.remote().pushStatus("snap-1").orElseThrow()
                .chunksUploaded());
    }

    @Test
    void aManifestKeptOtherwiseThanSentIsDeletedAndThePushFails() throws IOException {
        front.rewriteUploads((path, body) -> path.endsWith("/manifest.json") ? concat(FRAMING, body) : body);
        Snapshot snapshot = PushPullTest.guest().commit(damaged.local(), "snap-1");

        assertThatThrownBy(() -> damaged.remote().push(snapshot, PushListener.NONE)).isInstanceOf(StoreDamagesDataException.class)
                .hasMessageContaining("did not keep the manifest").hasMessageContaining("chunk-signature");
        assertThat(raw.list("snapshots/")).isEmpty();
        assertThatThrownBy(() -> hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE))
                .isInstanceOf(RemoteSnapshotNotFoundException.class);
    }

    @Test
    void aChunkTheStoreKeepsTruncatedIsUploadedAnewByTheNextPushNotCountedAsStored() throws IOException {
        hostA.remote().push(PushPullTest.guest().commit(hostA.local(), "snap-1"), PushListener.NONE);
        ChunkRef victim = hostA.remote().describe("snap-1").orElseThrow().file(SnapshotLayout.DURABLE_ARCHIVE).orElseThrow().chunks().getFirst();
        byte[] frame = raw.get("chunks/" + victim.sha256());
        raw.put("chunks/" + victim.sha256(), Arrays.copyOf(frame, frame.length / 2)); // as a store killed mid-write keeps it

        PushStatus again = hostA.remote().push(PushPullTest.guest().commit(hostA.local(), "snap-2"), PushListener.NONE);
        assertThat(again.state()).isEqualTo(TransferState.DONE);
        assertThat(again.chunksUploaded()).as("only the truncated chunk is sent again").isEqualTo(1);
        assertThat(raw.get("chunks/" + victim.sha256())).isEqualTo(frame);
        Snapshot copy = hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE).snapshot();
        assertThat(SnapshotInspector.verify(copy).problems()).isEmpty();
    }

    @Test
    void theRoundTripProbeFindsAStoreThatDamagesWhatItKeeps() throws IOException {
        hostA.remote().checkRoundTrip(); // s3rver itself keeps what it is sent when the body is fixed-length
        front.rewriteUploads((path, body) -> path.contains("/probes/") ? flipMiddleByte(body) : body);
        assertThatThrownBy(() -> damaged.remote().checkRoundTrip()).isInstanceOf(StoreDamagesDataException.class)
                .hasMessageContaining("first different at byte " + RoundTripProbe.SIZE / 2);
        assertThat(raw.list("probes/")).isEmpty();
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    private static byte[] flipMiddleByte(byte[] body) {
        byte[] flipped = body.clone();
        flipped[flipped.length / 2] ^= 0x40;
        return flipped;
    }
}
