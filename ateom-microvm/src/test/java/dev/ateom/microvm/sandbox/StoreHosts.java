package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.store.ConditionalPutProxy;
import dev.ateom.store.S3ProxyServer;
import dev.ateom.store.S3ServerKind;
import dev.ateom.store.TestS3Server;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hosts sharing one snapshot store, as the store tests and benchmarks set them up: one test S3 server on loopback
 * (s3proxy with its filesystem backend unless a {@link S3ServerKind} is named) with the bucket {@value #BUCKET}, and
 * in-process daemons with their own state and run dirs below {@code dir/<host-id>}. With {@link Front#LEASE_PROXY} the
 * hosts reach the server through {@link ConditionalPutProxy}, so their start probe finds conditional writes HONOURED
 * and leases are enforced; with {@link Front#DIRECT} they talk to the server itself (s3proxy 2.9.0 and S3Mock: RACY,
 * s3rver: IGNORED; leases unavailable). Closing stops every host it started, checks that none left processes behind,
 * then stops the server.
 * <pre>
 * store = StoreHosts.start(dir, "my-prefix", StoreHosts.Front.LEASE_PROXY);
 * hostA = store.host("host-a", store.flags("host-a", true));
 * store.get("snapshots/x/manifest.json");  store.put(key, bytes);  // over S3, behind the daemons' backs
 * store.leaseHolder("s1");  store.awaitNoLease("s1");
 * </pre>
 */
final class StoreHosts implements AutoCloseable {
    static final String BUCKET = "fleet";

    /** What the hosts talk to. */
    enum Front { DIRECT, LEASE_PROXY }

    private final Path dir;
    private final String prefix;
    private final TestS3Server s3;
    private final ConditionalPutProxy proxy;
    private final S3Client raw;
    private final List<DaemonHarness> hosts = new ArrayList<>();

    private StoreHosts(Path dir, String prefix, TestS3Server s3, ConditionalPutProxy proxy) {
        this.dir = dir;
        this.prefix = prefix;
        this.s3 = s3;
        this.proxy = proxy;
        this.raw = s3.rawClient();
    }

    /** Starts s3proxy (and the proxy) and sets the credentials the daemons' SDK finds (the aws.* system properties). */
    static StoreHosts start(Path dir, String prefix, Front front) throws IOException {
        return start(dir, prefix, S3ServerKind.S3PROXY, front);
    }

    /** As {@link #start(Path, String, Front)} with a server of {@code kind}. */
    static StoreHosts start(Path dir, String prefix, S3ServerKind kind, Front front) throws IOException {
        TestS3Server s3 = kind.start(Files.createDirectories(dir.resolve("s3")));
        ConditionalPutProxy proxy = null;
        try {
            s3.createBucket(BUCKET);
            if (front == Front.LEASE_PROXY) proxy = new ConditionalPutProxy(s3.endpoint());
        } catch (IOException | RuntimeException e) {
            s3.close();
            throw e;
        }
        System.setProperty("aws.accessKeyId", s3.accessKeyId());
        System.setProperty("aws.secretAccessKey", s3.secretAccessKey());
        return new StoreHosts(dir, prefix, s3, proxy);
    }

    TestS3Server s3() { return s3; }

    /** An object of the prefix, read over S3 (empty when absent). */
    Optional<byte[]> get(String key) {
        try {
            return Optional.of(raw.getObjectAsBytes(GetObjectRequest.builder().bucket(BUCKET).key(prefix + "/" + key).build()).asByteArray());
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        }
    }

    /** Writes an object of the prefix over S3, as someone else with access to the bucket would. */
    void put(String key, byte[] content) {
        raw.putObject(PutObjectRequest.builder().bucket(BUCKET).key(prefix + "/" + key).build(), RequestBody.fromBytes(content));
    }

    /** The bytes the objects below a key prefix of the prefix hold, as the store lists them. */
    long bytesUnder(String keyPrefix) {
        return raw.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(BUCKET).prefix(prefix + "/" + keyPrefix).build()).contents()
                .stream().filter(o -> !o.key().endsWith("/")).mapToLong(S3Object::size).sum();
    }

    /** The keys below a key prefix of the prefix, relative to the prefix. */
    List<String> list(String keyPrefix) {
        return raw.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(BUCKET).prefix(prefix + "/" + keyPrefix).build()).contents()
                .stream().map(o -> o.key().substring(prefix.length() + 1)).filter(k -> !k.endsWith("/")).toList();
    }

    /** The endpoint the hosts are given: the proxy's, or s3proxy's own. */
    URI endpoint() { return proxy != null ? proxy.endpoint() : s3.endpoint(); }

    /** The store flags of a host (a mutable map: add the host's other flags to it). */
    Map<ConfigOption, String> flags(String hostId, boolean pushOnSuspend) {
        Map<ConfigOption, String> flags = new EnumMap<>(ConfigOption.class);
        flags.put(ConfigOption.SNAPSHOT_STORE, "s3://" + BUCKET + "/" + prefix);
        flags.put(ConfigOption.SNAPSHOT_STORE_ENDPOINT, endpoint().toString());
        flags.put(ConfigOption.SNAPSHOT_STORE_REGION, "us-east-1");
        flags.put(ConfigOption.SNAPSHOT_STORE_PATH_STYLE, "true");
        flags.put(ConfigOption.HOST_ID, hostId);
        flags.put(ConfigOption.PUSH_ON_SUSPEND, Boolean.toString(pushOnSuspend));
        // no idle CHV processes kept started: each is a JVM of the stand-in, and several hosts share two cores
        flags.put(ConfigOption.VMM_POOL, "0");
        return flags;
    }

    /**
     * The store flags of a host that may restore what {@code imagesOf} snapshots: every host of a fleet has the guest
     * images at the same paths, so it allows that host's image dir, which its snapshots' specs name.
     */
    Map<ConfigOption, String> flags(String hostId, boolean pushOnSuspend, String imagesOf) throws IOException {
        Map<ConfigOption, String> flags = flags(hostId, pushOnSuspend);
        flags.put(ConfigOption.IMAGE_ROOTS, Files.createDirectories(DaemonHarness.imageDir(root(imagesOf))).toString());
        return flags;
    }

    /** The root dir of a host ({@code dir/<host-id>}, created): its guest images go in {@code DaemonHarness.imageDir(root)}. */
    Path root(String hostId) throws IOException {
        return Files.createDirectories(dir.resolve(hostId));
    }

    /** Starts a daemon on {@link #root} with {@code flags}; closed with the fixture. */
    DaemonHarness host(String hostId, Map<ConfigOption, String> flags) throws IOException {
        DaemonHarness host = new DaemonHarness(root(hostId), flags);
        hosts.add(host);
        return host;
    }

    /** A daemon a test started itself (on another thread, say): closed with the fixture. */
    synchronized DaemonHarness closesWith(DaemonHarness host) {
        hosts.add(host);
        return host;
    }

    /** Where s3proxy's filesystem backend keeps a key of the prefix (s3proxy only): tests plant damage there. */
    Path storedObject(String key) {
        return ((S3ProxyServer) s3).dataDirectory().resolve(BUCKET).resolve(prefix).resolve(key);
    }

    /** The host holding a sandbox's lease, if any. */
    Optional<String> leaseHolder(String sandboxId) throws IOException {
        Optional<byte[]> lease = get("leases/" + sandboxId);
        if (lease.isEmpty()) return Optional.empty();
        return Optional.of(ApiJson.mapper().readTree(lease.get()).path("hostId").asText());
    }

    /** Waits (bounded) until nobody holds a sandbox's lease: a suspend gives it back in the background, after its answer. */
    void awaitNoLease(String sandboxId) throws Exception {
        for (int i = 0; i < 600 && leaseHolder(sandboxId).isPresent(); i++) Thread.sleep(50);
        assertThat(leaseHolder(sandboxId)).as("holder of the lease of " + sandboxId + " after 30 s").isEmpty();
    }

    @Override
    public void close() {
        try {
            for (DaemonHarness host : hosts) host.close();
            assertThat(TestTools.leakedChildren()).as("processes left behind").isEmpty();
        } finally {
            if (proxy != null) proxy.close();
            raw.close();
            s3.close();
            System.clearProperty("aws.accessKeyId");
            System.clearProperty("aws.secretAccessKey");
        }
    }
}
