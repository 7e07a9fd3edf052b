package dev.ateom.microvm.systeminfo.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SystemInfoMetricsTest {
    @Test
    void exposesLagRepairsErrorsAndCommitsUnderStableNames() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        SystemInfoMetrics metrics = new SystemInfoMetrics(registry);
        metrics.observeLag(0.07);
        metrics.repaired("tls");
        metrics.failed("tls");
        metrics.failed("tls");
        metrics.committed("config");

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        String text = out.toString(StandardCharsets.UTF_8);

        assertThat(text)
                .contains("ateom_systeminfo_sync_lag_seconds_bucket{le=\"0.1\"} 1")
                .contains("ateom_systeminfo_sync_lag_seconds_bucket{le=\"0.05\"} 0")
                .contains("ateom_systeminfo_sync_lag_seconds_count 1")
                .contains("ateom_systeminfo_reconcile_repairs_total{volume=\"tls\"} 1.0")
                .contains("ateom_systeminfo_sync_errors_total{volume=\"tls\"} 2.0")
                .contains("ateom_systeminfo_generations_committed_total{volume=\"config\"} 1.0");
        assertThat(metrics.errors("tls")).isEqualTo(2);
        assertThat(metrics.lagObservations()).isEqualTo(1);
    }
}
