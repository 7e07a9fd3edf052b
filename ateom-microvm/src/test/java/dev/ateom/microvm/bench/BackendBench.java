package dev.ateom.microvm.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.systeminfo.SyncLag;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
        daemonArgs.addAll(settings.daemonArgs());
        try (ExternalDaemon daemon = new ExternalDaemon(root, guest.hypervisor(), guest.imageRoots(), daemonArgs)) {
            long startMillis = daemon.startMillis();
            Thread.sleep(settings.settle().toMillis());
            double idleRss = daemon.rssMib();
            ScalingResult scaling = new ScalingResult(guest.backend());
            // the daemon's own command lines on the same host, while it idles with its pool full: the floor under its bring-ups
            Percentiles virtiofsdFloor = VirtiofsdFloor.measure(Files.createDirectories(root.resolve("virtiofsd-floor")), settings.cycles());
            LifecycleResult lifecycle = lifecycle(daemon, scaling);
            lifecycle.virtiofsdFloor(virtiofsdFloor);
            scaling(daemon, scaling);
            Optional<SyncLag.Result> lag = syncLag
                    ? Optional.of(SyncLagThroughDaemon.measure(daemon, guest, hostDirectories, settings.syncUpdates(), 1, 10, 100))
                    : Optional.empty();
            return new BackendResult(guest.backend(), startMillis, idleRss, lifecycle, scaling, lag);
        }
    }

    /** The cycles; also the memory with its one sandbox up, into {@code memory}. */
    private LifecycleResult lifecycle(ExternalDaemon daemon, ScalingResult memory) throws Exception {
        LifecycleResult result = new LifecycleResult(guest.backend());
        int cycles = settings.cycles();
        // the last sandbox created stays up: it is the one suspended and resumed (one boot fewer, which a TCG guest feels)
        String subject = "c" + (cycles - 1);
        for (int i = 0; i < cycles; i++) {
            result.record("create", daemon.post("/v1/sandboxes", guest.specFor("c" + i)).expect(201));
            if (i < cycles - 1) daemon.delete("/v1/sandboxes/c" + i + "?deleteSnapshots=true").expect(204);
        }
        memory.add(new ScalingResult.Memory(1, daemon.rssMib(), daemon.childrenRssMib()));
        String snapshot = null;
        for (int i = 0; i < cycles; i++) {
            ExternalDaemon.Timed suspended = daemon.post("/v1/sandboxes/" + subject + "/suspend", "{}").expect(200);
            snapshot = suspended.body().path("snapshotId").asText();
            result.record("suspend", suspended);
            result.record("resume", daemon.post("/v1/sandboxes/" + subject + "/resume", "{}").expect(200));
        }
        daemon.post("/v1/sandboxes/" + subject + "/suspend", "{}").expect(200);
        for (int i = 0; i < cycles; i++) {
            ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshot).put("id", "k" + i);
            clone.putObject("identity").put("name", "k" + i).put("namespace", "bench");
            result.record("clone", daemon.post("/v1/sandboxes", clone.toString()).expect(201));
            daemon.delete("/v1/sandboxes/k" + i).expect(204);
        }
        daemon.delete("/v1/sandboxes/" + subject + "?deleteSnapshots=true").expect(204);
        System.out.printf("%s backend: %d lifecycle cycles done%n", guest.backend(), cycles);
        return result;
    }

    private void scaling(ExternalDaemon daemon, ScalingResult result) throws Exception {
        for (int level : settings.scalingLevels(guest.backend())) {
            String[] ops = {"create", "suspend", "resume"};
            Batch[] batches = {new Batch(), new Batch(), new Batch()};
            for (int round = 0; round < settings.scalingRounds(); round++) {
                String prefix = "s" + level + "-" + round + "-";
                IntFunction<String> id = j -> prefix + j;
                batches[0].run(level, j -> daemon.post("/v1/sandboxes", guest.specFor(id.apply(j))), 201);
                if (round == 0 && level > 1) result.add(new ScalingResult.Memory(level, daemon.rssMib(), daemon.childrenRssMib()));
                batches[1].run(level, j -> daemon.post("/v1/sandboxes/" + id.apply(j) + "/suspend", "{}"), 200);
                batches[2].run(level, j -> daemon.post("/v1/sandboxes/" + id.apply(j) + "/resume", "{}"), 200);
                new Batch().run(level, j -> daemon.delete("/v1/sandboxes/" + id.apply(j) + "?deleteSnapshots=true"), 204);
            }
            System.out.printf("%s backend: scaling level %d done%n", guest.backend(), level);
            for (int op = 0; op < ops.length; op++) {
                result.add(new ScalingResult.Row(level, ops[op], batches[op].requests, batches[op].failures, batches[op].wallSeconds,
                        batches[op].latencies));
            }
        }
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
