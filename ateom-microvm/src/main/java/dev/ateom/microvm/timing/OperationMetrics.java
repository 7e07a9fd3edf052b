package dev.ateom.microvm.timing;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.Map;
import java.util.function.Supplier;

/**
 * Counters and latency histograms of create/suspend/resume/clone/delete by outcome, sandboxes by state, and the
 * orphan directories in the state dir (no sandbox owns them: a record that could not be read, a half-removed one).
 */
public final class OperationMetrics {
    private final Counter operations;
    private final Histogram duration;

    public OperationMetrics(PrometheusRegistry registry, Supplier<Map<String, Long>> sandboxesByState,
                            Supplier<Integer> orphanSandboxDirs) {
        operations = Counter.builder().name("ateom_operations_total")
                .help("Sandbox operations by kind and outcome").labelNames("operation", "outcome").register(registry);
        duration = Histogram.builder().name("ateom_operation_duration_seconds")
                .help("Duration of sandbox operations").labelNames("operation", "outcome")
                .classicUpperBounds(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120).register(registry);
        GaugeWithCallback.builder().name("ateom_sandboxes").help("Sandboxes by state").labelNames("state")
                .callback(cb -> sandboxesByState.get().forEach((state, count) -> cb.call(count, state)))
                .register(registry);
        GaugeWithCallback.builder().name("ateom_orphan_sandbox_dirs")
                .help("Directories under <state>/sandboxes that belong to no sandbox; the log names each at start")
                .callback(cb -> cb.call(orphanSandboxDirs.get())).register(registry);
    }

    public void record(String operation, boolean success, double seconds) {
        String outcome = success ? "success" : "failure";
        operations.labelValues(operation, outcome).inc();
        duration.labelValues(operation, outcome).observe(seconds);
    }
}
