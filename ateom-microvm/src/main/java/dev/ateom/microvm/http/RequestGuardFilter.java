package dev.ateom.microvm.http;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;

import java.util.Set;

/**
 * Runs before every route: times the request ({@link ServerTiming}), refuses bodies over the size limit (413) and
 * requests without the bearer token (401), except for the unauthenticated liveness route.
 */
public final class RequestGuardFilter implements Filter {
    private static final Set<String> OPEN_PATHS = Set.of("/healthz");
    private static final String BEARER = "Bearer ";
    private final ApiToken token;
    private final long maxRequestBytes;

    public RequestGuardFilter(ApiToken token, long maxRequestBytes) {
        this.token = token;
        this.maxRequestBytes = maxRequestBytes;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        ServerTiming.timed(() -> guard(chain, req, res));
    }

    private void guard(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        String path = req.path().path();
        if (!OPEN_PATHS.contains(path)) {
            String header = req.headers().first(HeaderNames.AUTHORIZATION).orElse(null);
            if (header == null) {
                Responses.problem(res, new ApiException(401, "unauthorized", "Authentication required",
                        "send 'Authorization: Bearer <token>'; the token is in the daemon's token file"), path);
                return;
            }
            // the scheme is case-insensitive (RFC 9110, 11.1): "bearer" is as good as "Bearer"
            boolean bearer = header.regionMatches(true, 0, BEARER, 0, BEARER.length());
            if (!bearer || !token.matches(header.substring(BEARER.length()).strip())) {
                Responses.problem(res, new ApiException(401, "unauthorized", "Invalid token",
                        "the bearer token does not match the daemon's token file"), path);
                return;
            }
        }
        long length = req.headers().contentLength().orElse(0L);
        if (length > maxRequestBytes) {
            Responses.problem(res, new ApiException(413, "request-too-large", "Request body too large",
                    "body of " + length + " bytes exceeds the limit of " + maxRequestBytes + " bytes"), path);
            return;
        }
        chain.proceed();
    }
}
