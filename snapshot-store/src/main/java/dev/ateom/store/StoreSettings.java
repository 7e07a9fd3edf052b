package dev.ateom.store;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * How to reach the store and how to use it.
 *
 * @param endpoint      for stores other than AWS S3 (MinIO, Ceph RGW, R2, ...); empty = AWS's endpoint for the region
 * @param region        empty = the SDK's region chain (AWS_REGION, profile), else us-east-1 when an endpoint is given
 * @param pathStyle     {@code https://endpoint/bucket/key} instead of {@code https://bucket.endpoint/key}
 * @param credentials   empty = the SDK's default chain (environment, system properties, profile file, container/instance roles)
 * @param parallelism   concurrent chunk transfers of one push or pull
 * @param gcGrace       chunks younger than this are never collected; a push re-confirms its chunks if it takes longer than half of it
 * @param leases        whether adopting needs a lease (and so a store that honours conditional writes)
 * @param interceptors  extra SDK interceptors (request counting in tests, metrics)
 * @param requestTimeout longest one request may take, its answer's body included (a store that answers slowly forever
 *                       fails the transfer instead of holding it); the SDK retries a request that timed out twice more
 * @param verifyPushes  a push reads back what it wrote before it counts as pushed (see {@link Pusher}); off only to
 *                      measure what that costs
 */
public record StoreSettings(StoreLocation location, Optional<URI> endpoint, Optional<String> region, boolean pathStyle,
                            Optional<AwsCredentialsProvider> credentials, int parallelism, Duration gcGrace, LeaseMode leases,
                            List<ExecutionInterceptor> interceptors, Duration requestTimeout, boolean verifyPushes) {
    public static final int DEFAULT_PARALLELISM = 8;
    public static final Duration DEFAULT_GC_GRACE = Duration.ofHours(6);
    /** A 4 MiB chunk at 1 Mbit/s takes about 35 s: this is slower than any store worth using. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofMinutes(2);

    public StoreSettings {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(credentials, "credentials");
        if (parallelism < 1 || parallelism > 64) {
            throw new IllegalArgumentException("parallelism must be 1-64, not " + parallelism);
        }
        if (gcGrace.isNegative()) {
            throw new IllegalArgumentException("gcGrace must not be negative");
        }
        Objects.requireNonNull(leases, "leases");
        interceptors = List.copyOf(interceptors);
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("requestTimeout must be positive");
        }
    }

    /** Defaults for everything but the location: AWS endpoint, region chain, virtual-host style, default credentials. */
    public static StoreSettings of(StoreLocation location) {
        return new StoreSettings(location, Optional.empty(), Optional.empty(), false, Optional.empty(), DEFAULT_PARALLELISM,
                DEFAULT_GC_GRACE, LeaseMode.ENFORCED, List.of(), DEFAULT_REQUEST_TIMEOUT, true);
    }

    /** Parses the endpoint flag: an absolute http or https URL with a host. */
    public StoreSettings withEndpoint(String endpoint) throws StoreConfigException {
        URI uri;
        try {
            uri = URI.create(endpoint);
        } catch (IllegalArgumentException e) {
            throw new StoreConfigException(StoreOption.ENDPOINT, "'" + endpoint + "' is not a URL: " + e.getMessage());
        }
        if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                || (uri.getPath() != null && !uri.getPath().isEmpty() && !uri.getPath().equals("/")) || uri.getQuery() != null) {
            throw new StoreConfigException(StoreOption.ENDPOINT, "'" + endpoint + "' is not an http(s)://host[:port] URL");
        }
        return new StoreSettings(location, Optional.of(uri), region, pathStyle, credentials, parallelism, gcGrace, leases, interceptors,
                requestTimeout, verifyPushes);
    }

    public StoreSettings withRegion(String region) throws StoreConfigException {
        if (region == null || !region.matches("[a-z0-9-]{1,64}")) {
            throw new StoreConfigException(StoreOption.REGION, "'" + region + "' is not a region name (e.g. eu-west-1)");
        }
        return new StoreSettings(location, endpoint, Optional.of(region), pathStyle, credentials, parallelism, gcGrace, leases, interceptors,
                requestTimeout, verifyPushes);
    }

    public StoreSettings withPathStyle(boolean pathStyle) {
        return new StoreSettings(location, endpoint, region, pathStyle, credentials, parallelism, gcGrace, leases, interceptors,
                requestTimeout, verifyPushes);
    }

    public StoreSettings withCredentials(AwsCredentialsProvider credentials) {
        return new StoreSettings(location, endpoint, region, pathStyle, Optional.of(credentials), parallelism, gcGrace, leases, interceptors,
                requestTimeout, verifyPushes);
    }

    public StoreSettings withParallelism(int parallelism) {
        return new StoreSettings(location, endpoint, region, pathStyle, credentials, parallelism, gcGrace, leases, interceptors,
                requestTimeout, verifyPushes);
    }

    public StoreSettings withGcGrace(Duration gcGrace) {
        return new StoreSettings(location, endpoint, region, pathStyle, credentials, parallelism, gcGrace, leases, interceptors,
                requestTimeout, verifyPushes);
    }

    public StoreSettings withLeases(LeaseMode leases) {
        return new StoreSettings(location, endpoint, region, pathStyle, credentials, parallelism, gcGrace, leases, interceptors,
                requestTimeout, verifyPushes);
    }

    public StoreSettings withRequestTimeout(Duration requestTimeout) {
        return new StoreSettings(location, endpoint, region, pathStyle, credentials, parallelism, gcGrace, leases, interceptors, requestTimeout,
                verifyPushes);
    }

    public StoreSettings withPushVerification(boolean verifyPushes) {
        return new StoreSettings(location, endpoint, region, pathStyle, credentials, parallelism, gcGrace, leases, interceptors, requestTimeout,
                verifyPushes);
    }

    public StoreSettings withInterceptor(ExecutionInterceptor interceptor) {
        List<ExecutionInterceptor> all = new ArrayList<>(interceptors);
        all.add(interceptor);
        return new StoreSettings(location, endpoint, region, pathStyle, credentials, parallelism, gcGrace, leases, all,
                requestTimeout, verifyPushes);
    }
}
