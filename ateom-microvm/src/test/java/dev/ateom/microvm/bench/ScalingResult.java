package dev.ateom.microvm.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** One backend's scaling: per level of concurrency and operation the throughput and latency percentiles. */
final class ScalingResult {
    /**
     * One operation at one level: N requests at once, {@code rounds} times; {@code latenciesMs} of those that succeeded
     * (a loaded host can make some fail, e.g. a hypervisor that does not start in time: counted, not fatal).
     */
    record Row(int concurrent, String op, int requests, int failures, double wallSeconds, List<Double> latenciesMs) {
        Row {
            latenciesMs = List.copyOf(latenciesMs);
        }

        /** Successful operations per second of batch wall time. */
        double opsPerSecond() {
            return (requests - failures) / wallSeconds;
        }

        /** Empty when every request failed. */
        Optional<Percentiles> latency() {
            return latenciesMs.isEmpty() ? Optional.empty() : Optional.of(new Percentiles(latenciesMs));
        }
    }

    /** The daemon's and its children's resident memory with {@code running} sandboxes up. */
    record Memory(int running, double daemonMib, double childrenMib) {}

    private final String backend;
    private final List<Row> rows = new ArrayList<>();
    private final List<Memory> memory = new ArrayList<>();
    private ScalingResult baseline;
    private String baselineName;

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

    /** The same levels on a second daemon, each round on both in turn: a before/after table follows this one's. */
    void baseline(ScalingResult before, String name) {
        this.baseline = before;
        this.baselineName = name;
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
            out.append("| concurrent | op | requests | failed | ops/s | p50 ms | p99 ms | max ms |\n|---:|---|---:|---:|---:|---:|---:|---:|\n");
        }
        for (Row row : rows) {
            out.append(String.format("| %d | %s | %d | %d | %.2f | %s |%n", row.concurrent(), row.op(), row.requests(), row.failures(),
                    row.opsPerSecond(), row.latency().map(l -> String.format("%.0f | %.0f | %.0f", l.p(50), l.p(99), l.max()))
                            .orElse("– | – | –")));
        }
        out.append("\n| running sandboxes | daemon RSS MiB | their CHV + virtiofsd RSS MiB |\n|---:|---:|---:|\n");
        for (Memory sample : memory) {
            out.append(String.format("| %d | %.0f | %.0f |%n", sample.running(), sample.daemonMib(), sample.childrenMib()));
        }
        if (baseline != null) out.append(beforeAndAfter());
        return out.toString();
    }

    /** Each row beside the baseline's at the same level: latencies and throughput with after/before ratios. */
    private String beforeAndAfter() {
        StringBuilder out = new StringBuilder(String.format("%n%s backend: scaling before (%s) and after, each round on both daemons in"
                + " turn in this run (ms)%n%n| concurrent | op | p50 before | p50 after | after/before | p99 before | p99 after | after/before"
                + " | ops/s before | ops/s after | failed before / after |%n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|%n",
                backend, baselineName));
        for (Row after : rows) {
            Optional<Row> match = baseline.rows.stream().filter(b -> b.concurrent() == after.concurrent() && b.op().equals(after.op())).findFirst();
            if (match.isEmpty()) continue;
            Row before = match.get();
            out.append(String.format("| %d | %s | %s | %s | %.2f | %.2f | %d / %d |%n", after.concurrent(), after.op(),
                    ratioColumns(before, after, 50), ratioColumns(before, after, 99), before.opsPerSecond(), after.opsPerSecond(),
                    before.failures(), after.failures()));
        }
        return out.toString();
    }

    /** Percentile {@code p} before, after and their ratio; dashes where every request of a side failed. */
    private static String ratioColumns(Row before, Row after, int p) {
        Optional<Percentiles> b = before.latency();
        Optional<Percentiles> a = after.latency();
        if (b.isEmpty() || a.isEmpty()) return "– | – | –";
        return String.format("%.0f | %.0f | %.2f×", b.get().p(p), a.get().p(p), a.get().p(p) / b.get().p(p));
    }
}
