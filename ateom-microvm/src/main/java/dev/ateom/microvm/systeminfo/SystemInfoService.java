package dev.ateom.microvm.systeminfo;

import dev.ateom.microvm.systeminfo.spec.SystemInfoSpec;
import dev.ateom.microvm.systeminfo.sync.SourceWatcher;
import dev.ateom.microvm.systeminfo.sync.SyncFailureListener;
import dev.ateom.microvm.systeminfo.sync.SystemInfoMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Daemon-wide entry point: one per daemon, holding the shared inotify watcher and the metrics.
 * Close it at shutdown, after every sandbox's {@link SystemInfoSync} is closed.
 */
public final class SystemInfoService implements AutoCloseable {
    private final SystemInfoSettings settings;
    private final SourceWatcher watcher;
    private final SystemInfoMetrics metrics;
    private volatile SyncFailureListener failures = SyncFailureListener.NONE;

    public SystemInfoService(SystemInfoSettings settings, PrometheusRegistry registry) throws IOException {
        this.settings = settings;
        this.metrics = new SystemInfoMetrics(registry);
        this.watcher = new SourceWatcher();
        watcher.start();
    }

    /**
     * The volumes of one sandbox. {@code systemInfoRoot} is the share root
     * ({@code <state>/sandboxes/<id>/system-info}); {@code spec} must have passed
     * {@link dev.ateom.microvm.systeminfo.spec.SystemInfoSpecValidator}.
     */
    public SandboxSystemInfo forSandbox(String sandboxId, Path systemInfoRoot, SystemInfoSpec spec) {
        return new SandboxSystemInfo(sandboxId, systemInfoRoot, spec, settings, watcher, metrics, failures);
    }

    /** Where the syncs started from now on report a source change they cannot apply (the events stream). */
    public void reportFailuresTo(SyncFailureListener listener) {
        this.failures = listener;
    }

    /** The shared inotify watcher (diagnostics: {@link SourceWatcher#watchCount()}). */
    public SourceWatcher watcher() {
        return watcher;
    }

    public SystemInfoMetrics metrics() {
        return metrics;
    }

    public SystemInfoSettings settings() {
        return settings;
    }

    @Override
    public void close() throws IOException {
        watcher.close();
    }
}
