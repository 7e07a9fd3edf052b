package dev.ateom.microvm.systeminfo;

import dev.ateom.microvm.systeminfo.source.SourceLimits;
import java.time.Duration;

/**
 * Tuning of system-info volumes (daemon configuration).
 *
 * @param reconcileInterval how often a running sandbox's volumes are compared with their sources by checksum
 * @param coalesceWindow how long after the first event of a burst the sync waits before reading the source
 *     (a kubelet update is several events); bounds the lag from below
 * @param retryInterval how often a volume whose source failed is retried (a returning source is found then)
 * @param retainedGenerations earlier generations kept beside {@code ..data} per volume
 * @param limits bounds on a volume's file count and sizes
 */
public record SystemInfoSettings(
        Duration reconcileInterval,
        Duration coalesceWindow,
        Duration retryInterval,
        int retainedGenerations,
        SourceLimits limits) {

    public static final SystemInfoSettings DEFAULT = new SystemInfoSettings(
            Duration.ofSeconds(60), Duration.ofMillis(50), Duration.ofSeconds(1), 4, SourceLimits.DEFAULT);

    public SystemInfoSettings {
        requirePositive(reconcileInterval, "reconcileInterval");
        requirePositive(retryInterval, "retryInterval");
        if (coalesceWindow.isNegative()) {
            throw new IllegalArgumentException("coalesceWindow must not be negative, was " + coalesceWindow);
        }
        if (retainedGenerations < 1) {
            throw new IllegalArgumentException("retainedGenerations must be at least 1, was " + retainedGenerations);
        }
    }

    private static void requirePositive(Duration d, String name) {
        if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
    }

    public SystemInfoSettings withReconcileInterval(Duration interval) {
        return new SystemInfoSettings(interval, coalesceWindow, retryInterval, retainedGenerations, limits);
    }

    public SystemInfoSettings withRetryInterval(Duration interval) {
        return new SystemInfoSettings(reconcileInterval, coalesceWindow, interval, retainedGenerations, limits);
    }

    public SystemInfoSettings withLimits(SourceLimits newLimits) {
        return new SystemInfoSettings(reconcileInterval, coalesceWindow, retryInterval, retainedGenerations, newLimits);
    }
}
