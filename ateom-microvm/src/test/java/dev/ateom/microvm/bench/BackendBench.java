package dev.ateom.microvm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.sandbox.TestTools;
import dev.ateom.microvm.systeminfo.SyncLag;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * One backend measured through the REST API of {@code bin/ateom daemon} run as its own process: its start and idle
 * RSS, then the lifecycle cycles (create, suspend/resume of one sandbox, clones of its snapshot), then the scaling
 * levels (N sandboxes created, suspended and resumed at once, their memory while up), and when asked the system-info
 * sync lag through one of its sandboxes.
 */
final class BackendBench {
    private static final Logger LOG = System.getLogger(BackendBench.class.getName());
    /** How long {@link #settle} waits for the daemons' pools at most. */
    static final Duration SETTLE_MAX = Duration.ofSeconds(5);
    /** What {@link #settle} waits once the pools are full: the last operation's work beside (teardown, clone ahead). */
    static final Duration SETTLED_MORE = Duration.ofMillis(100);
    private int settles;
    private int unsettled;
    private final BenchSettings settings;
    private final BenchGuest guest;
    private final Path root;
    private final boolean syncLag;

    /** @param syncLag whether this backend also measures the system-info sync lag */
    BackendBench(BenchSettings settings, String backend, Path root, boolean syncLag) throws Exception {
        this.settings = settings;
        this.syncLag = syncLag;
        this.root = Files.createDirectories(root);
        this.guest = BenchGuest.prepare(this.root, backend, settings.readiness());
    }

    BackendResult run() throws Exception {
        Path hostDirectories = Files.createDirectories(root.resolve("host-dirs"));
        List<String> daemonArgs = new ArrayList<>(List.of("--host-directory-roots", hostDirectories.toString()));
        // the next resume's virtiofsd started ahead (issue 27); the baseline daemon ignores it (it is not the old path)
        if (!settings.daemonArgs().contains("--virtiofsd-ahead")) daemonArgs.addAll(List.of("--virtiofsd-ahead", "4"));
        daemonArgs.addAll(settings.daemonArgs());
        // the next clone of a snapshot made ahead (issue 27): the measured daemon's only, so a baseline of the same build
        // with other JVM options (BASELINE_JAVA_OPTS) compares clones without it, and an older checkout need not know it
        List<String> measuredArgs = new ArrayList<>(daemonArgs);
        if (!settings.daemonArgs().contains("--clone-ahead")) measuredArgs.addAll(List.of("--clone-ahead", "2"));
        try (ExternalDaemon daemon = new ExternalDaemon(root, guest.hypervisor(), guest.imageRoots(), measuredArgs);
             ExternalDaemon baseline = settings.baseline() && guest.backend().equals("none") ? baselineDaemon(daemonArgs) : null) {
            long startMillis = daemon.startMillis();
            Thread.sleep(settings.settle().toMillis());
            double idleRss = daemon.rssMib();
            ScalingResult scaling = new ScalingResult(guest.backend());
            // the daemon's own command lines on the same host, while it idles with its pool full: the floor under its bring-ups
            Percentiles virtiofsdFloor = VirtiofsdFloor.measure(Files.createDirectories(root.resolve("virtiofsd-floor")), settings.cycles());
            LifecycleResult lifecycle = new LifecycleResult(guest.backend());
            LifecycleResult before = baseline == null ? null : new LifecycleResult(guest.backend() + " (before)");
            ScalingResult scalingBefore = baseline == null ? null : new ScalingResult(guest.backend());
            List<Subject> subjects = baseline == null ? List.of(new Subject(daemon, lifecycle, scaling))
                    : List.of(new Subject(baseline, before, scalingBefore), new Subject(daemon, lifecycle, scaling));
            List<ExternalDaemon.PoolClaims> claimsBefore = new ArrayList<>();
            for (Subject s : subjects) claimsBefore.add(s.daemon().poolClaims());
            lifecycle(subjects);
            for (int i = 0; i < subjects.size(); i++) {
                subjects.get(i).result().poolClaims(subjects.get(i).daemon().poolClaims().since(claimsBefore.get(i)));
            }
            memoryWithOne(daemon, scaling);
            lifecycle.virtiofsdFloor(virtiofsdFloor);
            if (before != null) lifecycle.baseline(before);
            scaling(subjects, daemon);
            if (scalingBefore != null) scaling.baseline(scalingBefore, baselineName());
            Optional<SyncLag.Result> lag = syncLag
                    ? Optional.of(SyncLagThroughDaemon.measure(daemon, guest, hostDirectories, settings.syncUpdates(), 1, 10, 100))
                    : Optional.empty();
            return new BackendResult(guest.backend(), startMillis, idleRss, lifecycle, scaling, lag);
        }
    }

    /**
     * The daemon to compare with in this run: by default this build with the resume and clone path before issue 27;
     * or another built checkout ({@code bench.baselineCheckout}, e.g. a worktree of the previous commit) and/or other
     * JVM options ({@code bench.baselineJavaOpts}).
     */
    private ExternalDaemon baselineDaemon(List<String> daemonArgs) throws Exception {
        Path baselineRoot = Files.createDirectories(root.resolve("baseline"));
        return new ExternalDaemon(baselineCheckout().orElse(TestTools.repoRoot()), baselineRoot, guest.hypervisor(),
                guest.imageRoots(), daemonArgs, Map.of("ATEOM_JAVA_OPTS", baselineJavaOpts()));
    }

    private static Optional<Path> baselineCheckout() {
        return Optional.ofNullable(System.getProperty("bench.baselineCheckout")).filter(s -> !s.isBlank()).map(Path::of);
    }

    /** The second daemon's JVM options: the path before issue 27 unless another checkout or other options are named. */
    static String baselineJavaOpts() {
        String opts = System.getProperty("bench.baselineJavaOpts", "");
        if (!opts.isBlank() || baselineCheckout().isPresent()) return opts;
        return "-Dateom.baseline=before-issue-27";
    }

    /** What the before/after table calls the second daemon. */
    static String baselineName() {
        return (baselineCheckout().map(c -> "checkout " + c + " ").orElse("") + baselineJavaOpts()).strip();
    }

    /**
     * The daemons in the order they take cycle {@code cycle}: turns alternate, so neither always runs in the other's
     * wake (the other's teardown, its warm pool's refill: a new stand-in JVM). With the baseline always first, the
     * measured daemon's suspend, whose path no change touched, took 1.06-1.20x the baseline's API time in five runs;
     * with turns alternating, 0.98x.
     */
    private static List<Subject> inTurn(List<Subject> subjects, int cycle) {
        return cycle % 2 == 0 ? subjects : subjects.reversed();
    }

    /** A daemon the lifecycle and the scaling levels run on, and where their answers go. */
    private record Subject(ExternalDaemon daemon, LifecycleResult result, ScalingResult scaling) {}

    /** One sandbox up on the daemon measured, for "RSS with 1 sandbox" (the lifecycle leaves none up). */
    private void memoryWithOne(ExternalDaemon daemon, ScalingResult memory) throws Exception {
        daemon.post("/v1/sandboxes", guest.specFor("m1")).expect(201);
        memory.add(new ScalingResult.Memory(1, daemon.rssMib(), daemon.childrenRssMib()));
        daemon.delete("/v1/sandboxes/m1?deleteSnapshots=true").expect(204);
    }

    /**
     * The cycles (create, suspend/resume of one sandbox, clones of its snapshot), each step on every subject in turn
     * ({@link #inTurn}), so that a before/after pair shares whatever else the host was doing at the time.
     */
    private void lifecycle(List<Subject> subjects) throws Exception {
        int cycles = settings.cycles();
        // the last sandbox created stays up: it is the one suspended and resumed (one boot fewer, which a TCG guest feels)
        String subject = "c" + (cycles - 1);
        for (int i = 0; i < cycles; i++) {
            for (Subject s : inTurn(subjects, i)) {
                s.result().record("create", s.daemon().post("/v1/sandboxes", guest.specFor("c" + i)).expect(201));
                if (i < cycles - 1) s.daemon().delete("/v1/sandboxes/c" + i + "?deleteSnapshots=true").expect(204);
            }
        }
        for (int i = 0; i < cycles; i++) {
            // a resume right after its suspend, the sandbox having run a while before (as any does between a resume and
            // its suspend; past --virtiofsd-ahead-running-ms, so the next virtiofsd may serve by the suspend); the pair
            // begins with both pools full, so the suspend's own teardown is what runs beside the resume, not the refill
            // after the other daemon's resume
            Thread.sleep(settings.pauses().ranBeforeSuspend().toMillis());
            for (Subject s : inTurn(subjects, i)) {
                settle(subjects);
                s.result().record("suspend", s.daemon().post("/v1/sandboxes/" + subject + "/suspend", "{}").expect(200));
                s.result().record("resumeAfterRun", s.daemon().post("/v1/sandboxes/" + subject + "/resume", "{}").expect(200));
            }
            // the same pair back to back: the sandbox ran only as long as its last answer took to arrive
            for (Subject s : inTurn(subjects, i)) {
                s.result().record("suspend", s.daemon().post("/v1/sandboxes/" + subject + "/suspend", "{}").expect(200));
                s.result().record("resume", s.daemon().post("/v1/sandboxes/" + subject + "/resume", "{}").expect(200));
            }
            // and a resume a moment after its suspend, as when a sandbox is resumed for its next request: its suspend's
            // teardown is done by then (and the next epoch's virtiofsd started ahead serve), and so is the refill of
            // the other daemon's pool after its own resume of this cycle
            for (Subject s : inTurn(subjects, i)) {
                s.result().record("suspend", s.daemon().post("/v1/sandboxes/" + subject + "/suspend", "{}").expect(200));
            }
            Thread.sleep(settings.pauses().resumeLater().toMillis());
            for (Subject s : inTurn(subjects, i)) {
                settle(subjects);
                s.result().record("resumeLater", s.daemon().post("/v1/sandboxes/" + subject + "/resume", "{}").expect(200));
                // the API alone, no operation: what routing, the token check and the sandbox view as JSON cost
                s.result().recordApiOnly("GET /healthz", s.daemon().get("/healthz").expect(200));
                s.result().recordApiOnly("GET /v1/sandboxes/{id}", s.daemon().get("/v1/sandboxes/" + subject).expect(200));
            }
        }
        List<String> snapshots = new ArrayList<>();
        for (Subject s : subjects) {
            snapshots.add(s.daemon().post("/v1/sandboxes/" + subject + "/suspend", "{}").expect(200).body().path("snapshotId").asText());
        }
        for (int i = 0; i < cycles; i++) {
            for (Subject s : inTurn(subjects, i)) {
                int d = subjects.indexOf(s);
                ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshots.get(d)).put("id", "k" + i);
                clone.putObject("identity").put("name", "k" + i).put("namespace", "bench");
                s.result().record("clone", s.daemon().post("/v1/sandboxes", clone.toString()).expect(201));
                s.daemon().delete("/v1/sandboxes/k" + i).expect(204);
            }
        }
        // the same clones with the host settled before each: as when sandboxes are cloned from a template as requests
        // come, not one right after the other (the rows above): no refill of either daemon's pool still running. On the
        // none backend, where the daemon's own share is measured (a guest's clone is seconds of TCG)
        for (int i = 0; guest.backend().equals("none") && i < cycles; i++) {
            for (Subject s : inTurn(subjects, i)) {
                int d = subjects.indexOf(s);
                ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshots.get(d)).put("id", "m" + i);
                clone.putObject("identity").put("name", "m" + i).put("namespace", "bench");
                settle(subjects);
                s.result().record("cloneLater", s.daemon().post("/v1/sandboxes", clone.toString()).expect(201));
                s.daemon().delete("/v1/sandboxes/m" + i).expect(204);
            }
        }
        forks(subjects, subject);
        for (Subject s : subjects) s.result().settles(settles, unsettled, SETTLE_MAX);
        for (Subject s : subjects) s.daemon().delete("/v1/sandboxes/" + subject + "?deleteSnapshots=true").expect(204);
        System.out.printf("%s backend: %d lifecycle cycles done%s%n", guest.backend(), cycles,
                subjects.size() > 1 ? " (before and after, interleaved)" : "");
    }

    /**
     * Checkpoint and fork, which issue 27 asks to stay as fast (on the none backend, where the daemon's share is what
     * shows; a guest's fork is seconds of TCG): the subject runs again, and each cycle checkpoints it, then forks it into
     * two (a checkpoint of its own, then both clones restored at once) and deletes the clones. Settled before each, as
     * the fork's clones take two warm VMMs whose refill would otherwise run beside the next cycle.
     */
    private void forks(List<Subject> subjects, String subject) throws Exception {
        if (!guest.backend().equals("none")) return;
        for (Subject s : subjects) s.daemon().post("/v1/sandboxes/" + subject + "/resume", "{}").expect(200);
        for (int i = 0; i < settings.cycles(); i++) {
            for (Subject s : inTurn(subjects, i)) {
                settle(subjects);
                s.result().record("checkpoint", s.daemon().post("/v1/sandboxes/" + subject + "/checkpoint", "{}").expect(200));
                ExternalDaemon.Timed fork = s.daemon().post("/v1/sandboxes/" + subject + "/fork",
                        "{\"count\": 2, \"namePrefix\": \"f" + i + "\"}").expect(200);
                if (fork.body().path("succeeded").asInt() != 2) throw new IllegalStateException("fork " + i + " failed: " + fork.body());
                s.result().record("fork", fork);
                for (JsonNode clone : fork.body().path("clones")) s.daemon().delete("/v1/sandboxes/" + clone.path("id").asText()).expect(204);
            }
        }
    }

    /**
     * Until every daemon's warm pool is full again, i.e. no stand-in JVM that a claim's refill started still takes a
     * core (~0.5 s of CPU each on the none backend; a real CHV's start costs a few ms), then what the last operation
     * left to run beside (a suspend's teardown, a clone made ahead) a moment more. A wait that runs out is counted.
     */
    private void settle(List<Subject> subjects) throws Exception {
        settles++;
        for (Subject s : subjects) {
            if (!s.daemon().awaitPoolFull(SETTLE_MAX)) unsettled++;
        }
        Thread.sleep(SETTLED_MORE.toMillis());
    }

    /**
     * N sandboxes created, suspended and resumed at once, per level and round on every subject in turn (settled before
     * each, the order alternating), so that with a baseline each row has a before/after from the same run; the measured
     * daemon's memory is read with each level's sandboxes up.
     */
    private void scaling(List<Subject> subjects, ExternalDaemon measured) throws Exception {
        String[] ops = {"create", "suspend", "resume"};
        List<Integer> levels = settings.scalingLevels(guest.backend());
        for (int l = 0; l < levels.size(); l++) {
            int level = levels.get(l);
            Map<Subject, Batch[]> batches = new HashMap<>();
            for (Subject s : subjects) batches.put(s, new Batch[] {new Batch(), new Batch(), new Batch()});
            for (int round = 0; round < settings.scalingRounds(); round++) {
                for (Subject s : inTurn(subjects, l + round)) {
                    if (subjects.size() > 1) settle(subjects);
                    scalingRound(s.daemon(), level, round, batches.get(s), s.daemon() == measured ? s.scaling() : null);
                }
            }
            System.out.printf("%s backend: scaling level %d done%n", guest.backend(), level);
            for (Subject s : subjects) {
                for (int op = 0; op < ops.length; op++) {
                    Batch batch = batches.get(s)[op];
                    s.scaling().add(new ScalingResult.Row(level, ops[op], batch.requests, batch.failures, batch.wallSeconds, batch.latencies));
                }
            }
        }
    }

    /** One round of a level on one daemon, every sandbox deleted after; {@code memory}: where its RSS goes, if anywhere. */
    private void scalingRound(ExternalDaemon daemon, int level, int round, Batch[] batches, ScalingResult memory) throws Exception {
        String prefix = "s" + level + "-" + round + "-";
        IntFunction<String> id = j -> prefix + j;
        batches[0].run(level, j -> daemon.post("/v1/sandboxes", guest.specFor(id.apply(j))), 201);
        if (memory != null && round == 0 && level > 1) memory.add(new ScalingResult.Memory(level, daemon.rssMib(), daemon.childrenRssMib()));
        batches[1].run(level, j -> daemon.post("/v1/sandboxes/" + id.apply(j) + "/suspend", "{}"), 200);
        batches[2].run(level, j -> daemon.post("/v1/sandboxes/" + id.apply(j) + "/resume", "{}"), 200);
        new Batch().run(level, j -> daemon.delete("/v1/sandboxes/" + id.apply(j) + "?deleteSnapshots=true"), 204);
    }

    @FunctionalInterface
    private interface Request {
        ExternalDaemon.Timed send(int index) throws Exception;
    }

    /** Requests sent {@code n} at once, over one or more rounds: their latencies, failures and wall time. */
    private static final class Batch {
        private final List<Double> latencies = new ArrayList<>();
        private int requests;
        private int failures;
        private double wallSeconds;

        /** Sends {@code n} requests at once and waits for all; one answering otherwise than {@code status} is a failure. */
        void run(int n, Request request, int status) throws Exception {
            List<Callable<ExternalDaemon.Timed>> calls = new ArrayList<>();
            for (int j = 0; j < n; j++) {
                int index = j;
                calls.add(() -> request.send(index));
            }
            long t0 = System.nanoTime();
            try (ExecutorService pool = Executors.newFixedThreadPool(n)) {
                List<Future<ExternalDaemon.Timed>> answers = pool.invokeAll(calls);
                wallSeconds += (System.nanoTime() - t0) / 1e9;
                for (Future<ExternalDaemon.Timed> answer : answers) {
                    requests++;
                    ExternalDaemon.Timed timed = answer.get();
                    if (timed.status() == status) {
                        latencies.add(timed.millis());
                    } else {
                        failures++;
                        LOG.log(Level.WARNING, "HTTP {0} where {1} was expected: {2}", timed.status(), status, timed.body());
                    }
                }
            }
        }
    }
}
