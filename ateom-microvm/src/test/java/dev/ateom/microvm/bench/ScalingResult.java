package dev.ateom.microvm.bench;

import java.util.ArrayList;
import java.util.List;

/** One backend's scaling: per level of concurrency and operation the throughput and latency percentiles. */
final class ScalingResult {
    /** One operation at one level: N requests at once, {@code rounds} times. */
    record Row(int concurrent, String op, int requests, double wallSeconds, Percentiles latency) {
        double opsPerSecond() {
            return requests / wallSeconds;
        }
    }

    /** The daemon's and its children's resident memory with {@code running} sandboxes up. */
    record Memory(int running, double daemonMib, double childrenMib) {}

    private final String backend;
    private final List<Row> rows = new ArrayList<>();
    private final List<Memory> memory = new ArrayList<>();

    ScalingResult(String backend) {
        this.backend = backend;
    }

    void add(Row row) {
        rows.add(row);
    }

    void add(Memory sample) {
        memory.add(sample);
    }

    String backend() {
        return backend;
    }

    List<Row> rows() {
        return List.copyOf(rows);
    }

    List<Memory> memory() {
        return List.copyOf(memory);
    }

    String markdown() {
        StringBuilder out = new StringBuilder(String.format("%n### %s backend: scaling (N sandboxes at once; throughput = requests"
                + " / wall time of the batch)%n%n", backend));
        if (rows.isEmpty()) {
            out.append("(no scaling levels for this backend in this run)\n");
        } else {
            out.append("| concurrent | op | requests | ops/s | p50 ms | p99 ms | max ms |\n|---:|---|---:|---:|---:|---:|---:|\n");
        }
        for (Row row : rows) {
            out.append(String.format("| %d | %s | %d | %.2f | %.0f | %.0f | %.0f |%n", row.concurrent(), row.op(), row.requests(),
                    row.opsPerSecond(), row.latency().p(50), row.latency().p(99), row.latency().max()));
        }
        out.append("\n| running sandboxes | daemon RSS MiB | their CHV + virtiofsd RSS MiB |\n|---:|---:|---:|\n");
        for (Memory sample : memory) {
            out.append(String.format("| %d | %.0f | %.0f |%n", sample.running(), sample.daemonMib(), sample.childrenMib()));
        }
        return out.toString();
    }
}
