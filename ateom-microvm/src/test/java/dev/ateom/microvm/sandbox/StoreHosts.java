package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.store.ConditionalPutProxy;
import dev.ateom.store.S3ProxyServer;

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
 * Hosts sharing one snapshot store, as the store tests and benchmarks set them up: one s3proxy (filesystem backend)
 * on loopback with the bucket {@value #BUCKET}, and in-process daemons with their own state and run dirs below
 * {@code dir/<host-id>}. With {@link Front#LEASE_PROXY} the hosts reach s3proxy through {@link ConditionalPutProxy},
 * so their start probe finds conditional writes HONOURED and leases are enforced; with {@link Front#DIRECT} they
 * talk to s3proxy itself (2.9.0: probe RACY, leases unavailable). Closing stops every host it started, checks that
 * none left processes behind, then stops the server.
 * <pre>
 * store = StoreHosts.start(dir, "my-prefix", StoreHosts.Front.LEASE_PROXY);
 * hostA = store.host("host-a", store.flags("host-a", true));
 * store.storedObject("snapshots/x/manifest.json");  // where s3proxy keeps a key of the prefix
 * store.leaseHolder("s1");  store.awaitNoLease("s1");
 * </pre>
 */
final class StoreHosts implements AutoCloseable {
    static final String BUCKET = "fleet";

    /** What the hosts talk to. */
    enum Front { DIRECT, LEASE_PROXY }

    private final Path dir;
    private final String prefix;
    private final S3ProxyServer s3;
    private final ConditionalPutProxy proxy;
    private final List<DaemonHarness> hosts = new ArrayList<>();

    private StoreHosts(Path dir, String prefix, S3ProxyServer s3, ConditionalPutProxy proxy) {
        this.dir = dir;
        this.prefix = prefix;
        this.s3 = s3;
        this.proxy = proxy;
    }

    /** Starts s3proxy (and the proxy) and sets the credentials the daemons' SDK finds (the aws.* system properties). */
    static StoreHosts start(Path dir, String prefix, Front front) throws IOException {
        S3ProxyServer s3 = S3ProxyServer.start(Files.createDirectories(dir.resolve("s3")));
        ConditionalPutProxy proxy = null;
        try {
            s3.createBucket(BUCKET);
            if (front == Front.LEASE_PROXY) proxy = new ConditionalPutProxy(s3.endpoint());
        } catch (IOException | RuntimeException e) {
            s3.close();
            throw e;
        }
        System.setProperty("aws.accessKeyId", S3ProxyServer.IDENTITY);
        System.setProperty("aws.secretAccessKey", S3ProxyServer.CREDENTIAL);
        return new StoreHosts(dir, prefix, s3, proxy);
    }

    S3ProxyServer s3() { return s3; }

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

    /** Where s3proxy's filesystem backend keeps a key of the prefix: tests read leases and plant damage there. */
    Path storedObject(String key) {
        return s3.dataDirectory().resolve(BUCKET).resolve(prefix).resolve(key);
    }

    /** The host holding a sandbox's lease, if any (read where s3proxy keeps it). */
    Optional<String> leaseHolder(String sandboxId) throws IOException {
        Path lease = storedObject("leases/" + sandboxId);
        if (!Files.exists(lease)) return Optional.empty();
        return Optional.of(ApiJson.mapper().readTree(lease.toFile()).path("hostId").asText());
    }

    /** Waits (bounded) until nobody holds a sandbox's lease: a suspend gives it back in the background, after its answer. */
    void awaitNoLease(String sandboxId) throws Exception {
        for (int i = 0; i < 600 && Files.exists(storedObject("leases/" + sandboxId)); i++) Thread.sleep(50);
        assertThat(leaseHolder(sandboxId)).as("holder of the lease of " + sandboxId + " after 30 s").isEmpty();
    }

    @Override
    public void close() {
        try {
            for (DaemonHarness host : hosts) host.close();
            assertThat(TestTools.leakedChildren()).as("processes left behind").isEmpty();
        } finally {
            if (proxy != null) proxy.close();
            s3.close();
            System.clearProperty("aws.accessKeyId");
            System.clearProperty("aws.secretAccessKey");
        }
    }
}
