package dev.ateom.microvm.bench;

import java.util.Arrays;
import java.util.Collection;

/** Nearest-rank percentiles of a sample (the p50 of 10 samples is the 5th smallest, the p99 their largest). */
final class Percentiles {
    private final double[] sorted;

    Percentiles(Collection<Double> samples) {
        this(samples.stream().mapToDouble(Double::doubleValue).toArray());
    }

    Percentiles(double[] samples) {
        if (samples.length == 0) throw new IllegalArgumentException("no samples");
        sorted = samples.clone();
        Arrays.sort(sorted);
    }

    double p(int percentile) {
        int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(index, sorted.length - 1))];
    }

    double min() {
        return sorted[0];
    }

    double max() {
        return sorted[sorted.length - 1];
    }

    int count() {
        return sorted.length;
    }
}
