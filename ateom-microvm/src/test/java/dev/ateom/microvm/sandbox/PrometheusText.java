package dev.ateom.microvm.sandbox;

import java.util.OptionalDouble;

/** Reads one sample out of the daemon's {@code /metrics} answer (Prometheus text exposition format). */
public final class PrometheusText {
    private PrometheusText() {}

    /**
     * The value of {@code series} (a metric name, with its labels as exposed, e.g. {@code x_total{source="warm"}}), or
     * empty when the exposition has no such line: a labelled counter appears only once it was first counted.
     */
    public static OptionalDouble value(String exposition, String series) {
        return exposition.lines().filter(l -> l.startsWith(series + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1).trim())).findFirst();
    }
}
