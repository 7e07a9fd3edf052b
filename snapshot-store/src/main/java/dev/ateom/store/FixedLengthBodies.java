package dev.ateom.store;

import java.util.Locale;
import java.util.Optional;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * Refuses to send a request whose body the SDK would stream as {@code aws-chunked} (see {@link S3ClientFactory}): a store
 * that does not decode the framing keeps it as part of the object, and ateom finds out only when another host pulls.
 * It looks at the signed request, just before it goes out, so it holds for every operation the store uses.
 */
final class FixedLengthBodies implements ExecutionInterceptor {
    static final String CONTENT_SHA256 = "x-amz-content-sha256";

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        SdkHttpRequest request = context.httpRequest();
        Optional<String> payload = request.firstMatchingHeader(CONTENT_SHA256);
        boolean streamed = payload.map(value -> value.startsWith("STREAMING-")).orElse(false)
                || request.firstMatchingHeader("Content-Encoding").map(value -> value.toLowerCase(Locale.ROOT).contains("aws-chunked")).orElse(false);
        if (streamed) {
            throw new IllegalStateException(request.method() + " " + request.encodedPath() + " would send an aws-chunked body ("
                    + CONTENT_SHA256 + ": " + payload.orElse("none") + "); the store client sends fixed-length bodies only");
        }
    }
}
