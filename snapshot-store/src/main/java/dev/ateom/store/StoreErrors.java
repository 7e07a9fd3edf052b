package dev.ateom.store;

import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Turns the SDK's exceptions into the store's typed ones, naming the setting to blame where there is one. */
final class StoreErrors {
    private static final Set<String> CREDENTIAL_CODES = Set.of("InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied",
            "InvalidToken", "ExpiredToken", "InvalidSecurity");

    private StoreErrors() {
    }

    static StoreException map(SdkException e, String what, StoreLocation location) {
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            if (cause instanceof StoreException refusal) {
                return refusal; // the store client's own verdict on an answer, e.g. a body larger than its object can be
            }
        }
        if (e instanceof ApiCallTimeoutException || e instanceof ApiCallAttemptTimeoutException) {
            return new StoreUnavailableException(what + " failed: the store did not finish answering in time (" + e.getMessage() + ")", e);
        }
        if (e instanceof NoSuchBucketException || "NoSuchBucket".equals(code(e))) {
            return new BucketNotFoundException(location.bucket(), e);
        }
        if (e instanceof S3Exception s3) {
            if (CREDENTIAL_CODES.contains(code(e)) || (s3.statusCode() == 403 && code(e) == null)) {
                return new StoreCredentialsException(what + " was refused: HTTP " + s3.statusCode() + " " + code(e), e);
            }
            return new StoreRequestException(what + " failed: HTTP " + s3.statusCode() + (code(e) == null ? "" : " " + code(e))
                    + (message(s3) == null ? "" : ": " + message(s3)), s3.statusCode(), e);
        }
        if (e instanceof SdkClientException && e.getMessage() != null && e.getMessage().startsWith("Unable to load credentials")) {
            return new StoreCredentialsException("no credentials for the store: " + e.getMessage(), e);
        }
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConnectException || cause instanceof UnknownHostException || cause instanceof NoRouteToHostException
                    || cause instanceof SocketTimeoutException || cause instanceof SocketException
                    || (cause instanceof InterruptedIOException)) {
                return new StoreUnavailableException(what + " failed: the store did not answer (" + cause + ")", e);
            }
        }
        return new StoreRequestException(what + " failed: " + e.getMessage(), 0, e);
    }

    static String code(SdkException e) {
        if (e instanceof S3Exception s3) {
            AwsErrorDetails details = s3.awsErrorDetails();
            return details == null ? null : details.errorCode();
        }
        return null;
    }

    private static String message(S3Exception e) {
        AwsErrorDetails details = e.awsErrorDetails();
        return details == null ? null : details.errorMessage();
    }
}
