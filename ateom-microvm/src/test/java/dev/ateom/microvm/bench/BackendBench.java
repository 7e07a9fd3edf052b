package dev.ateom.microvm.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.json.ApiJson;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * One backend measured through the REST API of {@code bin/ateom daemon} run as its own process: its start and idle
 * RSS, then the lifecycle cycles (create, suspend/resume of one sandbox, clones of its snapshot), then the scaling
 * levels (N sandboxes created, suspended and resumed at once, their memory while up).
 */
final class BackendBench {
    private final BenchSettings settings;
    private final BenchGuest guest;
    private final Path root;

    BackendBench(BenchSettings settings, String backend, Path root) throws Exception {
        this.settings = settings;
        this.root = Files.createDirectories(root);
        this.guest = BenchGuest.prepare(this.root, backend, settings.readiness());
    }

    BackendResult run() throws Exception {
        try (ExternalDaemon daemon = new ExternalDaemon(root, guest.hypervisor(), guest.imageRoots(), settings.daemonArgs())) {
            long startMillis = daemon.startMillis();
            Thread.sleep(settings.settle().toMillis());
            double idleRss = daemon.rssMib();
            ScalingResult scaling = new ScalingResult(guest.backend());
            LifecycleResult lifecycle = lifecycle(daemon, scaling);
            scaling(daemon, scaling);
            return new BackendResult(guest.backend(), startMillis, idleRss, lifecycle, scaling);
        }
    }

    /** The cycles; also the memory with its one sandbox up, into {@code memory}. */
    private LifecycleResult lifecycle(ExternalDaemon daemon, ScalingResult memory) throws Exception {
        LifecycleResult result = new LifecycleResult(guest.backend());
        int cycles = settings.cycles();
        // the last sandbox created stays up: it is the one suspended and resumed (one boot fewer, which a TCG guest feels)
        String subject = "c" + (cycles - 1);
        for (int i = 0; i < cycles; i++) {
            result.record("create", ok(daemon.post("/v1/sandboxes", guest.specFor("c" + i)), 201));
            if (i < cycles - 1) ok(daemon.delete("/v1/sandboxes/c" + i + "?deleteSnapshots=true"), 204);
        }
        memory.add(new ScalingResult.Memory(1, daemon.rssMib(), daemon.childrenRssMib()));
        String snapshot = null;
        for (int i = 0; i < cycles; i++) {
            ExternalDaemon.Timed suspended = ok(daemon.post("/v1/sandboxes/" + subject + "/suspend", "{}"), 200);
            snapshot = suspended.body().path("snapshotId").asText();
            result.record("suspend", suspended);
            result.record("resume", ok(daemon.post("/v1/sandboxes/" + subject + "/resume", "{}"), 200));
        }
        ok(daemon.post("/v1/sandboxes/" + subject + "/suspend", "{}"), 200);
        for (int i = 0; i < cycles; i++) {
            ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshot).put("id", "k" + i);
            clone.putObject("identity").put("name", "k" + i).put("namespace", "bench");
            result.record("clone", ok(daemon.post("/v1/sandboxes", clone.toString()), 201));
            ok(daemon.delete("/v1/sandboxes/k" + i), 204);
        }
        ok(daemon.delete("/v1/sandboxes/" + subject + "?deleteSnapshots=true"), 204);
        return result;
    }

    private void scaling(ExternalDaemon daemon, ScalingResult result) throws Exception {
        for (int level : settings.scalingLevels(guest.backend())) {
            List<List<Double>> latencies = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            double[] walls = new double[3];
            for (int round = 0; round < settings.scalingRounds(); round++) {
                String prefix = "s" + level + "-" + round + "-";
                IntFunction<String> id = j -> prefix + j;
                walls[0] += batch(level, j -> daemon.post("/v1/sandboxes", guest.specFor(id.apply(j))), 201, latencies.get(0));
                if (round == 0 && level > 1) result.add(new ScalingResult.Memory(level, daemon.rssMib(), daemon.childrenRssMib()));
                walls[1] += batch(level, j -> daemon.post("/v1/sandboxes/" + id.apply(j) + "/suspend", "{}"), 200, latencies.get(1));
                walls[2] += batch(level, j -> daemon.post("/v1/sandboxes/" + id.apply(j) + "/resume", "{}"), 200, latencies.get(2));
                batch(level, j -> daemon.delete("/v1/sandboxes/" + id.apply(j) + "?deleteSnapshots=true"), 204, new ArrayList<>());
            }
            String[] ops = {"create", "suspend", "resume"};
            for (int op = 0; op < ops.length; op++) {
                result.add(new ScalingResult.Row(level, ops[op], latencies.get(op).size(), walls[op], new Percentiles(latencies.get(op))));
            }
        }
    }

    @FunctionalInterface
    private interface Request {
        ExternalDaemon.Timed send(int index) throws Exception;
    }

    /** {@code n} requests at once; adds each one's latency and returns the batch's wall time in seconds. */
    private static double batch(int n, Request request, int status, List<Double> latencies) throws Exception {
        List<Callable<ExternalDaemon.Timed>> calls = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            int index = j;
            calls.add(() -> request.send(index));
        }
        long t0 = System.nanoTime();
        try (ExecutorService pool = Executors.newFixedThreadPool(n)) {
            List<Future<ExternalDaemon.Timed>> answers = pool.invokeAll(calls);
            double wall = (System.nanoTime() - t0) / 1e9;
            for (Future<ExternalDaemon.Timed> answer : answers) latencies.add(ok(answer.get(), status).millis());
            return wall;
        }
    }

    private static ExternalDaemon.Timed ok(ExternalDaemon.Timed answer, int status) {
        if (answer.status() != status) {
            throw new IllegalStateException("expected HTTP " + status + " but got " + answer.status() + ": " + answer.body());
        }
        return answer;
    }
}
