package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotLayout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The store on each S3 server the tests start (s3proxy, S3Mock, s3rver), reached only over S3: uploads are fixed-length
 * bodies the server keeps byte for byte, snapshots round-trip between two hosts, the probe finds what the server honours
 * and every host shares the verdict, damage is named, dedup and gc work.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(S3ServerKind.class)
class StoreServersTest extends PerServerTestBase {
    /** Every request the client sent, as signed. */
    private static final class SentRequests implements ExecutionInterceptor {
        record Sent(String method, String path, Map<String, String> headers) {
        }

        final List<Sent> sent = new CopyOnWriteArrayList<>();

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            Map<String, String> headers = new HashMap<>();
            context.httpRequest().forEachHeader((name, values) -> headers.put(name.toLowerCase(), String.join(",", values)));
            sent.add(new Sent(context.httpRequest().method().name(), context.httpRequest().encodedPath(), headers));
        }

        List<Sent> puts() {
            return sent.stream().filter(s -> s.method().equals("PUT")).toList();
        }
    }

    @Test
    void everyUploadIsAFixedLengthBodySignedWithItsHashAndTheServerKeepsItByteForByte() throws IOException {
        SentRequests recorder = new SentRequests();
        Host recorded = host("recorded", settings().withInterceptor(recorder), CACHE_BYTES, HOST_CPU);
        Snapshot source = PushPullTest.guest().commit(recorded.local(), "snap-1");
        recorded.remote().push(source, PushListener.NONE);
        recorded.remote().probe(); // conditional PUTs too

        assertThat(recorder.puts()).hasSizeGreaterThan(10).allSatisfy(put -> {
            assertThat(put.headers()).as(put.path()).doesNotContainKey("content-encoding").containsKeys("content-length", "content-md5");
            assertThat(put.headers().get("x-amz-content-sha256")).as(put.path()).matches("[0-9a-f]{64}");
        });
        assertThat(recorder.puts()).anySatisfy(put -> assertThat(put.headers()).containsEntry("if-none-match", "*"));

        // what the server gives back is exactly what was sent: same length, and the SHA-256 the request was signed with
        Map<String, SentRequests.Sent> putByKey = recorder.puts().stream()
                .collect(Collectors.toMap(p -> p.path().substring(p.path().indexOf("/fleet/") + 1), p -> p, (a, b) -> b));
        RemoteManifest manifest = recorded.remote().describe("snap-1").orElseThrow();
        List<String> keys = Stream.concat(Stream.of("snapshots/snap-1/manifest.json"), manifest.files().stream()
                .flatMap(f -> f.chunks().stream()).filter(c -> !c.isHole()).map(c -> "chunks/" + c.sha256())).distinct().toList();
        for (String key : keys) {
            byte[] stored = raw.get(key);
            SentRequests.Sent put = putByKey.get(raw.key(key));
            assertThat(put).as("PUT of " + key).isNotNull();
            assertThat((long) stored.length).as(key).isEqualTo(Long.parseLong(put.headers().get("content-length")));
            assertThat(HexFormat.of().formatHex(ChunkHash.sha256().digest(stored))).as(key).isEqualTo(put.headers().get("x-amz-content-sha256"));
        }

        Snapshot copy = hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE).snapshot();
        for (String file : Stream.concat(SnapshotLayout.CONTENT_FILES.stream(), Stream.of(SnapshotLayout.MANIFEST)).toList()) {
            assertThat(Files.mismatch(source.layout().directory().resolve(file), copy.layout().directory().resolve(file))).as(file).isEqualTo(-1L);
        }
    }

    @Test
    void aBodyWhoseContentMd5DoesNotMatchIsRefusedWhereTheServerChecksIt() {
        byte[] body = "what was sent".getBytes(StandardCharsets.US_ASCII);
        PutObjectRequest lying = PutObjectRequest.builder().bucket(bucket).key(raw.key("md5-probe")).contentLength((long) body.length)
                .contentMD5(S3Objects.md5("something else".getBytes(StandardCharsets.US_ASCII))).build();
        try (S3Client client = server.rawClient()) {
            if (kind.checksContentMd5()) {
                assertThatThrownBy(() -> client.putObject(lying, RequestBody.fromBytes(body))).isInstanceOf(S3Exception.class)
                        .satisfies(e -> assertThat(((S3Exception) e).statusCode()).isEqualTo(400));
            } else {
                client.putObject(lying, RequestBody.fromBytes(body));
                assertThat(raw.get("md5-probe")).isEqualTo(body); // kept, unchecked: only the read-back finds damage there
            }
        }
    }

    @Test
    void theRoundTripProbePassesWhereTheSdksStreamedUploadIsDamagedByTheServer() throws IOException {
        hostA.remote().checkRoundTrip();

        // the client as it was before fixed-length bodies: the SDK's default chunked encoding over http (aws-chunked bodies
        // with STREAMING-AWS4-HMAC-SHA256-PAYLOAD), checksums only when required
        StoreSettings settings = settings();
        try (S3Client streaming = S3Client.builder().httpClientBuilder(UrlConnectionHttpClient.builder()).endpointOverride(server.endpoint())
                .region(Region.US_EAST_1).forcePathStyle(true).credentialsProvider(server.credentials())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build();
             S3Objects objects = new S3Objects(streaming, settings.location())) {
            RoundTripProbe probe = new RoundTripProbe(objects, new StoreKeys(settings.location()));
            if (kind == S3ServerKind.S3RVER) {
                assertThatThrownBy(probe::run).isInstanceOf(StoreDamagesDataException.class)
                        .hasMessageContaining("chunk-signature").hasMessageContaining("snapshot-store-endpoint");
            } else {
                probe.run(); // s3proxy and S3Mock decode the framing
            }
        }
        assertThat(raw.list("probes/")).isEmpty();
    }

    @Test
    void theProbeFindsWhatTheServerHonoursOnEveryRun() throws IOException {
        int runs = kind == S3ServerKind.S3MOCK ? 5 : 2;
        for (int run = 0; run < runs; run++) {
            ProbeResult probe = hostA.remote().probe();
            System.out.println(server + " probe " + (run + 1) + ": " + probe.conditionalWrites() + ", " + probe.cost() + " (" + probe.detail() + ")");
            assertThat(probe.conditionalWrites()).as(probe.detail()).isEqualTo(kind.conditionalWrites());
        }
        assertThat(raw.list("probes/")).isEmpty();
    }

    @Test
    void theLeaseVerdictIsRecordedOnceAndEveryHostUsesIt() throws IOException {
        LeaseVerdicts.Established first = hostA.remote().leaseVerdicts().establish("host-a");
        assertThat(first.probe()).isPresent();
        assertThat(first.verdict().conditionalWrites()).isEqualTo(kind.conditionalWrites());
        assertThat(first.verdict().recordedBy()).isEqualTo("host-a");

        LeaseVerdicts.Established second = hostB.remote().leaseVerdicts().establish("host-b");
        assertThat(second.probe()).as("a final verdict is not probed again").isEmpty();
        assertThat(second.verdict()).isEqualTo(first.verdict());
        assertThat(raw.list("lease-verdict/")).hasSize(1);
        assertThatThrownBy(() -> hostB.remote().leases().acquire("sb-1", "host-b")).isInstanceOf(LeasesUnavailableException.class)
                .hasMessageContaining("recorded by host-a").hasMessageContaining("snapshot-store-leases");
        assertThat(raw.list("leases/")).isEmpty();
    }

    @Test
    void aFlippedByteInAStoredChunkFailsThePullNamingItAndLeavesNothing() throws IOException {
        hostA.remote().push(PushPullTest.guest().commit(hostA.local(), "snap-1"), PushListener.NONE);
        ChunkRef victim = hostA.remote().describe("snap-1").orElseThrow().file(SnapshotLayout.DURABLE_ARCHIVE).orElseThrow().chunks().getFirst();
        byte[] frame = raw.get("chunks/" + victim.sha256());
        frame[frame.length / 2] ^= 0x01;
        raw.put("chunks/" + victim.sha256(), frame);

        assertThatThrownBy(() -> hostB.remote().pull("snap-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE))
                .isInstanceOf(ChunkCorruptException.class).hasMessageContaining(victim.sha256());
        assertThat(hostB.local().list()).isEmpty();
        assertThat(PushPullTest.hiddenEntries(hostB.local().snapshotsDirectory())).isEmpty();
        assertThat(hostB.remote().chunkCache().contains(victim.chunkHash().orElseThrow())).isFalse();
    }

    @Test
    void aSecondSnapshotSharesItsChunksAndGcRemovesOnlyWhatNoManifestReferences() throws IOException {
        PushStatus first = hostA.remote().push(DedupTest.variation(1).commit(hostA.local(), "clone-1"), PushListener.NONE);
        PushStatus second = hostA.remote().push(DedupTest.variation(2).commit(hostA.local(), "clone-2"), PushListener.NONE);
        double ratio = (double) second.bytesUploaded() / first.bytesUploaded();
        System.out.printf("%s: second push uploaded %.3f of the first%n", server, ratio);
        assertThat(ratio).isLessThan(0.1);

        Set<String> onlySecond = chunks("clone-2");
        onlySecond.removeAll(chunks("clone-1"));
        assertThat(onlySecond).isNotEmpty();
        assertThat(hostB.remote().delete("clone-2")).isTrue();
        GcReport gc = hostB.remote().gc(Duration.ZERO);
        assertThat(gc.removed()).extracting(removed -> removed.hash().hex()).containsExactlyInAnyOrderElementsOf(onlySecond);
        assertThat(gc.missing()).isEmpty();
        assertThat(hostB.remote().pull("clone-1", hostB.local(), PullOptions.forHost("54.0.0"), PullListener.NONE).snapshot().id())
                .isEqualTo("clone-1");
    }

    private Set<String> chunks(String snapshotId) throws IOException {
        return hostA.remote().describe(snapshotId).orElseThrow().files().stream().flatMap(f -> f.chunks().stream())
                .filter(c -> !c.isHole()).map(ChunkRef::sha256).collect(Collectors.toSet());
    }
}
