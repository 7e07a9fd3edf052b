package dev.ateom.microvm.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

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
            "resumeLater", List.of("vmRestore", "vmResume"),
            "resumeAfterRun", List.of("vmRestore", "vmResume"),
            "clone", List.of("vmRestore", "vmResume"),
            "cloneLater", List.of("vmRestore", "vmResume"),
            "checkpoint", List.of("pause", "snapshot", "archive", "vmResume"),
            // a fork's answer times its checkpoint and its clones as wholes; their calls are in the clones' own answers
            "fork", List.of());

    /** Operations with no goal of their own: issue 27 asks only that they get no slower (the before/after table). */
    private static final Set<String> NO_OWN_GOAL = Set.of("checkpoint", "fork");

    /**
     * One answer: its wall time, the hypervisor's calls in it, the daemon's {@code total} and its record saves
     * ({@code records}, where reported) and the daemon's time for the whole request ({@code Server-Timing}): wall
     * minus total is what lies outside the operation, of which the daemon's part (routing, JSON, the sandbox view of
     * the answer, the final record save) is its request time minus total, and the rest the connection and the client.
     */
    private record Sample(double apiMs, double hypervisorMs, double totalMs, double recordsMs, double serverMs) {
        double ownMs() { return apiMs - hypervisorMs; }

        double outsideMs() { return apiMs - totalMs; }

        double outsideInDaemonMs() { return serverMs - totalMs; }
    }

    /** The daemon's own share of resume and clone: the goals of issue 27 (ms, p50). */
    static final Map<String, Double> OWN_SHARE_GOALS = Map.of("resume", 15.0, "resumeLater", 15.0, "resumeAfterRun", 15.0,
            "clone", 20.0, "cloneLater", 20.0);

    private final String backend;
    private Percentiles virtiofsdFloor;
    private LifecycleResult baseline;
    private ExternalDaemon.PoolClaims poolClaims;
    private String settles = "";
    private final Map<String, List<Sample>> samples = new LinkedHashMap<>();
    private final Map<String, List<Double>> apiOnly = new LinkedHashMap<>();
    private final Map<String, List<Double>> apiOnlyInDaemon = new LinkedHashMap<>();
    private final Map<String, Map<String, List<Double>>> steps = new LinkedHashMap<>();

    LifecycleResult(String backend) {
        this.backend = backend;
    }

    void record(String op, ExternalDaemon.Timed answer) {
        Map<String, Double> timings = new LinkedHashMap<>();
        answer.body().path("timingsMs").properties().forEach(e -> timings.put(e.getKey(), e.getValue().asDouble()));
        double hypervisor = HYPERVISOR_STEPS.get(op).stream().mapToDouble(s -> timings.getOrDefault(s, 0.0)).sum();
        samples.computeIfAbsent(op, k -> new ArrayList<>()).add(new Sample(answer.millis(), hypervisor,
                timings.getOrDefault("total", answer.millis()), timings.getOrDefault("records", 0.0), answer.serverMillis()));
        Map<String, List<Double>> byStep = steps.computeIfAbsent(op, k -> new LinkedHashMap<>());
        timings.forEach((step, ms) -> byStep.computeIfAbsent(step, k -> new ArrayList<>()).add(ms));
    }

    /** A request that runs no operation, timed as the client sees it and as the daemon does. */
    void recordApiOnly(String request, ExternalDaemon.Timed answer) {
        apiOnly.computeIfAbsent(request, k -> new ArrayList<>()).add(answer.millis());
        apiOnlyInDaemon.computeIfAbsent(request, k -> new ArrayList<>()).add(answer.serverMillis());
    }

    /** The API's own round trip without an operation, beside what the operations spend outside their steps. */
    private String apiOnlyTable() {
        if (apiOnly.isEmpty()) return "";
        StringBuilder out = new StringBuilder(String.format("%n%s: the API alone, no operation (ms, as the client sees it; in the"
                + " daemon = its Server-Timing)%n%n", backend));
        out.append("| request | count | p50 | p99 | in the daemon p50 |\n|---|---:|---:|---:|---:|\n");
        apiOnly.forEach((request, ms) -> {
            Percentiles p = new Percentiles(ms);
            out.append(String.format("| %s | %d | %.2f | %.2f | %.2f |%n", request, p.count(), p.p(50), p.p(99),
                    new Percentiles(apiOnlyInDaemon.get(request)).p(50)));
        });
        return out.toString();
    }

    String backend() {
        return backend;
    }

    /** The bare start of a sandbox's three virtiofsd ({@link VirtiofsdFloor}), measured in the same run. */
    void virtiofsdFloor(Percentiles floor) {
        this.virtiofsdFloor = floor;
    }

    /** The VMMs the cycles' bring-ups took warm from the pool or started cold. */
    void poolClaims(ExternalDaemon.PoolClaims claims) {
        this.poolClaims = claims;
    }

    private static String claimsLine(String counts) {
        return String.format("%nVMMs the cycles' bring-ups took from the warm pool / started cold: %s%n", counts);
    }

    /** How often the cycles waited for every daemon's pool to be full, and how often in vain. */
    void settles(int waits, int ranOut, Duration max) {
        this.settles = waits == 0 ? "" : String.format("%nwaits for every daemon's warm pool to be full (before each resumeAfterRun's"
                + " suspend, resumeLater, cloneLater and checkpoint): %d, of which %d ran out at %d s%n", waits, ranOut, max.toSeconds());
    }

    /** The same cycles on a daemon with the path before issue 27, interleaved with these in the same run. */
    void baseline(LifecycleResult before) {
        this.baseline = before;
    }

    /** The operations measured, in the order they ran. */
    List<String> operations() {
        return List.copyOf(samples.keySet());
    }

    /** The daemon's own share of each answer of {@code op}: wall minus the hypervisor's calls. */
    Percentiles own(String op) {
        return of(op, Sample::ownMs);
    }

    private Percentiles of(String op, ToDoubleFunction<Sample> value) {
        return new Percentiles(samples.get(op).stream().mapToDouble(value).toArray());
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
            // a suspend or checkpoint starts no virtiofsd; a fork's answer has no hypervisor figure to add the floor to
            if (op.equals("suspend") || NO_OWN_GOAL.contains(op)) return;
            double hv = new Percentiles(list.stream().map(Sample::hypervisorMs).toList()).p(50);
            double floor = hv + virtiofsdFloor.p(50);
            String atFloor = op.equals("create") ? String.format("hypervisor + %.0f ms", virtiofsdFloor.p(50))
                    : String.format("%.2f×", floor / Math.max(hv, 1));
            out.append(String.format("| %s | %.1f | %.1f | %.2f× | %s |%n", op, api(op).p(50), floor, api(op).p(50) / floor, atFloor));
        });
        return out.toString();
    }

    /**
     * Issue 27's table: resume and clone p50/p99, the hypervisor's calls, the daemon's own share (wall minus those
     * calls) and where it goes: outside the operation (wall minus the daemon's total) and the record saves.
     */
    String ownShareTable() {
        StringBuilder out = new StringBuilder(String.format("%n%s: the daemon's own share (ms; own = API wall − the hypervisor's"
                + " calls; outside = API wall − the daemon's total: HTTP, routing, JSON, the answer's view, the final record save;"
                + " of which in the daemon = its Server-Timing − total; records = the saves inside the operation)%n%n", backend));
        out.append("| op | API p50 | API p99 | hypervisor p50 | hypervisor p99 | own p50 | own p99 | outside p50 | of it in the daemon p50"
                + " | records p50 | goal (own p50) | met |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
        for (String op : List.of("resume", "resumeAfterRun", "resumeLater", "clone", "cloneLater")) {
            if (!samples.containsKey(op)) continue;
            Percentiles api = api(op);
            Percentiles hv = of(op, Sample::hypervisorMs);
            Percentiles own = own(op);
            double goal = OWN_SHARE_GOALS.get(op);
            out.append(String.format("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | ≤ %.0f ms | %s |%n", op,
                    api.p(50), api.p(99), hv.p(50), hv.p(99), own.p(50), own.p(99), of(op, Sample::outsideMs).p(50),
                    of(op, Sample::outsideInDaemonMs).p(50), of(op, Sample::recordsMs).p(50), goal, own.p(50) <= goal ? "met" : "not met"));
        }
        return out.toString();
    }

    /**
     * Before (the path before issue 27, on a second daemon) against after (this one), their cycles interleaved in one
     * run: per operation the API and the own share, p50 and p99, and after / before.
     */
    static String comparison(LifecycleResult before, LifecycleResult after) {
        StringBuilder out = new StringBuilder(String.format("%n%s backend: before (%s) and after, two"
                + " daemons, cycles interleaved in this run (ms)%n%n", after.backend, BackendBench.baselineName()));
        out.append("| op | API p50 before | API p50 after | after/before | own p50 before | own p50 after | after/before"
                + " | own p99 before | own p99 after | records p50 before | records p50 after |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (String op : after.operations()) {
            if (!before.samples.containsKey(op)) continue;
            double apiBefore = before.api(op).p(50);
            double apiAfter = after.api(op).p(50);
            double ownBefore = before.own(op).p(50);
            double ownAfter = after.own(op).p(50);
            out.append(String.format("| %s | %.1f | %.1f | %.2f× | %.1f | %.1f | %.2f× | %.1f | %.1f | %.1f | %.1f |%n", op, apiBefore,
                    apiAfter, apiAfter / apiBefore, ownBefore, ownAfter, ownAfter / Math.max(ownBefore, 0.1), before.own(op).p(99),
                    after.own(op).p(99), before.of(op, Sample::recordsMs).p(50), after.of(op, Sample::recordsMs).p(50)));
        }
        if (before.poolClaims != null && after.poolClaims != null) {
            out.append(claimsLine(String.format("before %d / %d, after %d / %d", before.poolClaims.warm(), before.poolClaims.cold(),
                    after.poolClaims.warm(), after.poolClaims.cold())));
        }
        out.append("\nsteps before and after (p50 ms):\n\n");
        for (String op : List.of("resume", "resumeAfterRun", "resumeLater", "clone", "cloneLater")) {
            for (LifecycleResult r : List.of(before, after)) {
                if (!r.steps.containsKey(op)) continue;
                out.append("- ").append(op).append(r == before ? " before:" : " after:");
                r.stepMedians(op).forEach((step, ms) -> out.append(String.format(" %s %.0f", step, ms)));
                out.append("\n");
            }
        }
        return out.toString();
    }

    private static String metOrNot(boolean met) {
        return met ? "met" : "not met";
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
            String met;
            switch (op) {
                case "create" -> { goal = "≤ hypervisor + 30 ms"; met = metOrNot(overhead.p(50) <= 30); }
                case "suspend" -> { goal = "≤ 1.2×"; met = metOrNot(ratio.p(50) <= 1.2); }
                case "resume", "resumeAfterRun", "resumeLater" -> { goal = "≤ 1.3×"; met = metOrNot(ratio.p(50) <= 1.3); }
                case String noGoal when NO_OWN_GOAL.contains(noGoal) -> { goal = "no slower (before/after)"; met = "—"; }
                default -> { goal = "≤ 1.5×"; met = metOrNot(ratio.p(50) <= 1.5); }
            }
            String ratioText = HYPERVISOR_STEPS.get(op).isEmpty() ? "—" : String.format("%.2f×", ratio.p(50));
            out.append(String.format("| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %s | %s |%n", op, list.size(), api.p(50),
                    api.min(), api.max(), hv.p(50), overhead.p(50), ratioText, goal, met));
        });
        out.append(ownShareTable()).append(apiOnlyTable());
        if (baseline != null) out.append(baseline.ownShareTable()).append(comparison(baseline, this));
        else if (poolClaims != null) out.append(claimsLine(String.format("%d / %d", poolClaims.warm(), poolClaims.cold())));
        out.append(settles);
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
