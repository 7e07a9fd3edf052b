package dev.ateom.microvm.http;

import io.helidon.webserver.http.HttpRules;

import java.time.Instant;
import java.util.Map;

/** {@code GET /healthz}: liveness, no authentication, no details that need protecting. */
public final class HealthEndpoint extends RouteTable {
    private final Instant started = Instant.now();

    @Override
    public void routing(HttpRules rules) {
        routes(rules).get("/healthz", (req, res) -> Responses.json(res, 200, Map.of("status", "ok", "startedAt", started.toString())));
    }
}
