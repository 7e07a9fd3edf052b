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

/**
 * Builds the SDK client. Checksums are computed and validated only "when required": many S3-compatible stores
 * do not know the newer flexible-checksum headers, and every chunk is checked against its SHA-256 anyway.
 */
final class S3ClientFactory {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(60);

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
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .credentialsProvider(credentials)
                .overrideConfiguration(override -> {
                    override.retryStrategy(RetryMode.STANDARD);
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
