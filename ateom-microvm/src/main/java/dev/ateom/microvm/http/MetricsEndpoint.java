package dev.ateom.microvm.http;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

import static java.lang.System.Logger.Level.WARNING;

/**
 * {@code GET /metrics}: everything in the registry in the Prometheus text format. The JVM's own metrics are
 * registered by {@link #registerJvmMetricsInBackground()} once the API answers (the registration was ~65 ms of
 * the daemon's start-up CPU); a scrape that comes before it finished waits for it, so every scrape has them.
 */
public final class MetricsEndpoint extends RouteTable {
    private static final System.Logger LOG = System.getLogger(MetricsEndpoint.class.getName());

    private final PrometheusRegistry registry;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private final CompletableFuture<Void> jvmMetrics = new CompletableFuture<>();

    public MetricsEndpoint(PrometheusRegistry registry) { this.registry = registry; }

    /** Registers the JVM metrics on a thread of their own; call once, after the server started. */
    public void registerJvmMetricsInBackground() {
        Thread.ofVirtual().name("jvm-metrics").start(() -> {
            try {
                JvmMetrics.builder().register(registry);
            } catch (RuntimeException e) {
                LOG.log(WARNING, "JVM metrics are not exported: " + e);
            } finally {
                jvmMetrics.complete(null);
            }
        });
    }

    @Override
    public void routing(HttpRules rules) {
        routes(rules).get("/metrics", this::scrape);
    }

    private void scrape(ServerRequest req, ServerResponse res) throws IOException {
        jvmMetrics.join();
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
        writer.write(out, registry.scrape());
        res.header(HeaderNames.CONTENT_TYPE, writer.getContentType());
        res.send(out.toByteArray());
    }
}
