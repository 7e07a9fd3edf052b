package dev.ateom.microvm.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One backend's lifecycle cycles: per operation the API's wall time beside the hypervisor's own calls in the same
 * cycle, and every step the daemon reported in the answer's {@code timingsMs}.
 */
final class LifecycleResult {
    /** The hypervisor's own steps of each operation, as the daemon names them in {@code timingsMs}. */
    static final Map<String, List<String>> HYPERVISOR_STEPS = Map.of(
            "create", List.of("vmCreate", "vmBoot", "ready"),
            "suspend", List.of("pause", "snapshot", "archive"),
            "resume", List.of("vmRestore", "vmResume"),
            "clone", List.of("vmRestore", "vmResume"));

    private record Sample(double apiMs, double hypervisorMs) {}

    private final String backend;
    private Percentiles virtiofsdFloor;
    private final Map<String, List<Sample>> samples = new LinkedHashMap<>();
    private final Map<String, Map<String, List<Double>>> steps = new LinkedHashMap<>();

    LifecycleResult(String backend) {
        this.backend = backend;
    }

    void record(String op, ExternalDaemon.Timed answer) {
        Map<String, Double> timings = new LinkedHashMap<>();
        answer.body().path("timingsMs").properties().forEach(e -> timings.put(e.getKey(), e.getValue().asDouble()));
        double hypervisor = HYPERVISOR_STEPS.get(op).stream().mapToDouble(s -> timings.getOrDefault(s, 0.0)).sum();
        samples.computeIfAbsent(op, k -> new ArrayList<>()).add(new Sample(answer.millis(), hypervisor));
        Map<String, List<Double>> byStep = steps.computeIfAbsent(op, k -> new LinkedHashMap<>());
        timings.forEach((step, ms) -> byStep.computeIfAbsent(step, k -> new ArrayList<>()).add(ms));
    }

    String backend() {
        return backend;
    }

    /** The bare start of a sandbox's three virtiofsd ({@link VirtiofsdFloor}), measured in the same run. */
    void virtiofsdFloor(Percentiles floor) {
        this.virtiofsdFloor = floor;
    }

    /** The operations measured, in the order they ran. */
    List<String> operations() {
        return List.copyOf(samples.keySet());
    }

    int cycles(String op) {
        return samples.get(op).size();
    }

    Percentiles api(String op) {
        return new Percentiles(samples.get(op).stream().map(Sample::apiMs).toList());
    }

    /** Each step's p50 for one operation, in the order the daemon reports them. */
    Map<String, Double> stepMedians(String op) {
        Map<String, Double> medians = new LinkedHashMap<>();
        steps.getOrDefault(op, Map.of()).forEach((step, values) -> medians.put(step, new Percentiles(values).p(50)));
        return medians;
    }

    /**
     * How close each bring-up gets to its floor: the hypervisor's own calls plus the bare start of three virtiofsd,
     * which nothing before vm.boot or vm.restore can overlap (both connect to all three shares).
     */
    private String floorTable() {
        StringBuilder out = new StringBuilder(String.format("%nthe floor virtiofsd sets: a bare start of the three shares until"
                + " each serves, p50 %.1f ms (min %.1f, max %.1f, %d rounds), plus the hypervisor's calls:%n%n",
                virtiofsdFloor.p(50), virtiofsdFloor.min(), virtiofsdFloor.max(), virtiofsdFloor.count()));
        out.append("| op | API p50 | floor p50 (hypervisor + virtiofsd) | API / floor | the goal's ratio at the floor |\n");
        out.append("|---|---:|---:|---:|---:|\n");
        samples.forEach((op, list) -> {
            if (op.equals("suspend")) return; // a suspend starts no virtiofsd
            double hv = new Percentiles(list.stream().map(Sample::hypervisorMs).toList()).p(50);
            double floor = hv + virtiofsdFloor.p(50);
            String atFloor = op.equals("create") ? String.format("hypervisor + %.0f ms", virtiofsdFloor.p(50))
                    : String.format("%.2f×", floor / Math.max(hv, 1));
            out.append(String.format("| %s | %.1f | %.1f | %.2f× | %s |%n", op, api(op).p(50), floor, api(op).p(50) / floor, atFloor));
        });
        return out.toString();
    }

    /** The table of issue 15's goals: API p50/min/max, the hypervisor's calls, the overhead, the ratio, met or not. */
    String markdown() {
        StringBuilder out = new StringBuilder(String.format("%n### %s backend: lifecycle through the API (ms; hypervisor = its own"
                + " calls in the same cycle: create vm.create+vm.boot+ready, suspend pause+snapshot+archive, resume/clone"
                + " vm.restore+vm.resume)%n%n", backend));
        out.append("| op | cycles | API p50 | API min | API max | hypervisor p50 | overhead p50 | ratio p50 | goal | met |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
        samples.forEach((op, list) -> {
            Percentiles api = api(op);
            Percentiles hv = new Percentiles(list.stream().map(Sample::hypervisorMs).toList());
            Percentiles overhead = new Percentiles(list.stream().map(s -> s.apiMs() - s.hypervisorMs()).toList());
            Percentiles ratio = new Percentiles(list.stream().map(s -> s.apiMs() / Math.max(s.hypervisorMs(), 1)).toList());
            String goal;
            boolean met;
            switch (op) {
                case "create" -> { goal = "≤ hypervisor + 30 ms"; met = overhead.p(50) <= 30; }
                case "suspend" -> { goal = "≤ 1.2×"; met = ratio.p(50) <= 1.2; }
                case "resume" -> { goal = "≤ 1.3×"; met = ratio.p(50) <= 1.3; }
                default -> { goal = "≤ 1.5×"; met = ratio.p(50) <= 1.5; }
            }
            out.append(String.format("| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f× | %s | %s |%n", op, list.size(), api.p(50),
                    api.min(), api.max(), hv.p(50), overhead.p(50), ratio.p(50), goal, met ? "met" : "not met"));
        });
        if (virtiofsdFloor != null) out.append(floorTable());
        out.append("\nsteps as the daemon reports them (p50 ms; steps that run in parallel overlap):\n\n");
        steps.forEach((op, byStep) -> {
            out.append("- ").append(op).append(":");
            stepMedians(op).forEach((step, ms) -> out.append(String.format(" %s %.0f", step, ms)));
            out.append("\n");
        });
        return out.toString();
    }
}
