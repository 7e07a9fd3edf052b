package dev.ateom.microvm.systeminfo.sync;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

/** The system-info metrics; register once per daemon, on the registry that {@code /metrics} serves. */
public final class SystemInfoMetrics {
    private final Histogram syncLag;
    private final Counter repairs;
    private final Counter errors;
    private final Counter commits;

    public SystemInfoMetrics(PrometheusRegistry registry) {
        syncLag = Histogram.builder()
                .name("ateom_systeminfo_sync_lag_seconds")
                .help("Time from a source change being observed to the new generation being committed")
                .unit(Unit.SECONDS)
                .classicUpperBounds(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
                .register(registry);
        repairs = Counter.builder()
                .name("ateom_systeminfo_reconcile_repairs")
                .help("Differences between source and volume found and repaired by the periodic reconciliation")
                .labelNames("volume")
                .register(registry);
        errors = Counter.builder()
                .name("ateom_systeminfo_sync_errors")
                .help("Failed syncs of a volume (source unreadable or invalid, write failed)")
                .labelNames("volume")
                .register(registry);
        commits = Counter.builder()
                .name("ateom_systeminfo_generations_committed")
                .help("Generations committed into running sandboxes' volumes")
                .labelNames("volume")
                .register(registry);
    }

    public void observeLag(double seconds) {
        syncLag.observe(seconds);
    }

    public void repaired(String volume) {
        repairs.labelValues(volume).inc();
    }

    public void failed(String volume) {
        errors.labelValues(volume).inc();
    }

    public void committed(String volume) {
        commits.labelValues(volume).inc();
    }

    public long repairs(String volume) {
        return (long) repairs.labelValues(volume).get();
    }

    public long errors(String volume) {
        return (long) errors.labelValues(volume).get();
    }

    public long commits(String volume) {
        return (long) commits.labelValues(volume).get();
    }

    public long lagObservations() {
        return syncLag.collect().getDataPoints().getFirst().getCount();
    }
}
