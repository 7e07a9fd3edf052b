package dev.ateom.store;

import java.io.IOException;
import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CreateBucketRequest;

/**
 * An S3 server a test started on loopback and reaches only over the S3 protocol: s3proxy, Adobe S3Mock or s3rver
 * ({@link S3ServerKind}). The same suites run against each ({@code @ParameterizedClass} over the kinds). Stop and
 * restart it on the same port and data to play an outage.
 */
public interface TestS3Server extends AutoCloseable {
    S3ServerKind kind();

    URI endpoint();

    /** The access key the server accepts (some check signatures with it). */
    String accessKeyId();

    String secretAccessKey();

    default StaticCredentialsProvider credentials() {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId(), secretAccessKey()));
    }

    /** Store settings for a bucket of this server, as an operator would give them: endpoint, path style, credentials. */
    default StoreSettings settings(String bucket, String prefix) throws StoreConfigException {
        return StoreSettings.of(StoreLocation.parse("s3://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix)))
                .withEndpoint(endpoint().toString()).withRegion("us-east-1").withPathStyle(true).withCredentials(credentials())
                .withParallelism(4);
    }

    /** A client of this server configured as the store configures its own (fixed-length bodies), for what tests plant or read. */
    default S3Client rawClient() {
        try {
            return S3ClientFactory.create(settings("unused", ""));
        } catch (StoreException e) {
            throw new IllegalStateException(e);
        }
    }

    default void createBucket(String bucket) {
        try (S3Client client = rawClient()) {
            client.createBucket(CreateBucketRequest.builder().bucket(bucket).build());
        }
    }

    /** Kills the server (as an outage would); {@link #restart()} brings it back on the same port and data. */
    void stop();

    void restart() throws IOException;

    @Override
    void close();
}
