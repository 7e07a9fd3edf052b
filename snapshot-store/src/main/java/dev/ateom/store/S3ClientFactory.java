package dev.ateom.store;

import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * Builds the SDK client. Checksums are computed and validated only "when required": many S3-compatible stores
 * do not know the newer flexible-checksum headers, and every chunk is checked against its SHA-256 anyway.
 *
 * <p>Uploads are fixed-length bodies, signed with their SHA-256, never {@code aws-chunked}. Over plain http the SDK
 * signs every payload, and for PutObject and UploadPart its S3 auth scheme sets the signer property
 * {@code CHUNK_ENCODING_ENABLED}, which makes the payload signer stream the body as {@code Content-Encoding: aws-chunked}
 * with {@code x-amz-content-sha256: STREAMING-AWS4-HMAC-SHA256-PAYLOAD}. Stores that do not decode that framing store
 * it with the data (s3rver 3.7.1 does). {@code S3Configuration.chunkedEncodingEnabled(false)} turns the property off for
 * exactly those two operations, so the signer hashes the whole body and sends it as it is; {@link FixedLengthBodies}
 * refuses any request that would still go out streamed, whatever the SDK decides in a later version.
 */
final class S3ClientFactory {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(60);
    /** Room for the standard strategy's backoff between attempts (well under a second each). */
    private static final Duration RETRY_BACKOFF = Duration.ofSeconds(5);

    private S3ClientFactory() {
    }

    static S3Client create(StoreSettings settings) throws StoreException {
        return create(settings, credentials(settings));
    }

    static S3Client create(StoreSettings settings, AwsCredentialsProvider credentials) throws StoreException {
        S3ClientBuilder builder = S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(CONNECT_TIMEOUT).socketTimeout(SOCKET_TIMEOUT))
                .region(region(settings))
                .forcePathStyle(settings.pathStyle())
                .serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(false).build())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .credentialsProvider(credentials)
                .overrideConfiguration(override -> {
                    override.retryStrategy(RetryMode.STANDARD);
                    // the standard strategy makes three attempts: a store that answers slowly forever costs three timeouts
                    override.apiCallAttemptTimeout(settings.requestTimeout());
                    override.apiCallTimeout(settings.requestTimeout().multipliedBy(3).plus(RETRY_BACKOFF));
                    override.addExecutionInterceptor(new FixedLengthBodies());
                    settings.interceptors().forEach(override::addExecutionInterceptor);
                });
        settings.endpoint().ifPresent(builder::endpointOverride);
        return builder.build();
    }

    /** The settings' provider, else the SDK's default chain (environment, system properties, profile, container/instance role). */
    static AwsCredentialsProvider credentials(StoreSettings settings) {
        return settings.credentials().orElseGet(() -> DefaultCredentialsProvider.builder().build());
    }

    private static Region region(StoreSettings settings) throws StoreConfigException {
        if (settings.region().isPresent()) {
            return Region.of(settings.region().get());
        }
        try {
            return DefaultAwsRegionProviderChain.builder().build().getRegion();
        } catch (SdkClientException e) {
            if (settings.endpoint().isPresent()) {
                return Region.US_EAST_1; // S3-compatible stores mostly ignore it, but SigV4 needs one
            }
            throw new StoreConfigException(StoreOption.REGION, "no region given and none found in AWS_REGION or the AWS profile");
        }
    }

    /** Resolves credentials once, so a missing one is reported at start and not as the first push's failure. */
    static void requireCredentials(AwsCredentialsProvider credentials) throws StoreCredentialsException {
        try {
            credentials.resolveCredentials();
        } catch (SdkClientException e) {
            throw new StoreCredentialsException("no credentials for the store: " + e.getMessage(), e);
        }
    }
}
