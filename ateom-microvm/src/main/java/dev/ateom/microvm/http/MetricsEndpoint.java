package dev.ateom.microvm.http;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

/** {@code GET /metrics}: everything in the registry in the Prometheus text format. */
public final class MetricsEndpoint extends RouteTable {
    private final PrometheusRegistry registry;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    public MetricsEndpoint(PrometheusRegistry registry) { this.registry = registry; }

    @Override
    public void routing(HttpRules rules) {
        routes(rules).get("/metrics", this::scrape);
    }

    private void scrape(ServerRequest req, ServerResponse res) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
        writer.write(out, registry.scrape());
        res.header(HeaderNames.CONTENT_TYPE, writer.getContentType());
        res.send(out.toByteArray());
    }
}
