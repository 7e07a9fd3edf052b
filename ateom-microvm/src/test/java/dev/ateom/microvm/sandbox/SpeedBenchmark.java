package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.fixtures.guest.GuestCmdline;
import dev.ateom.fixtures.guest.GuestImage;
import dev.ateom.microvm.json.ApiJson;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The speed goals of issue 15, measured through the REST API of {@code bin/ateom daemon} run as its own process:
 * per operation the API's wall time beside the hypervisor's own calls in the same cycle (the daemon's step timings
 * of them) and their ratio against the goal; the daemon's start to its first answer; its idle RSS and its RSS with
 * 20 running sandboxes. Backends: the CHV stand-in's {@code none} (daemon overhead only; default) and {@code qemu}
 * (a real TCG guest), and a real CHV when {@code ATEOM_CLOUD_HYPERVISOR} names one.
 * Run: {@code scripts/bench.sh} (or {@code -Dbench.cycles=N -Dbench.backends=none,qemu}). Prints tables, asserts
 * nothing about time; the tables also go to {@code bench-results/speed-<backend>.md}.
 */
@Tag("benchmark")
class SpeedBenchmark {
    private static final int RUNNING = 20;
    @TempDir Path dir;

    @Test
    void apiBesideHypervisor() throws Exception {
        int cycles = Integer.getInteger("bench.cycles", 10);
        for (String backend : System.getProperty("bench.backends", defaultBackends()).split(",")) {
            String table = measure(backend.strip(), cycles);
            System.out.println(table);
            Path out = Files.createDirectories(TestTools.repoRoot().resolve("bench-results")).resolve("speed-" + backend.strip() + ".md");
            Files.writeString(out, table);
            System.out.println("written to " + out);
        }
    }

    private static String defaultBackends() {
        return System.getenv("ATEOM_CLOUD_HYPERVISOR") != null ? "none,chv" : "none";
    }

    /** One backend's table; also what the smoke test runs with one cycle. */
    String measure(String backend, int cycles) throws Exception {
        Path root = Files.createDirectories(dir.resolve(backend));
        Path hypervisor = hypervisor(root, backend);
        Map<String, List<double[]>> ops = new LinkedHashMap<>();
        Map<String, Map<String, List<Long>>> steps = new LinkedHashMap<>();
        StringBuilder out = new StringBuilder();
        ObjectNode spec = spec(root, backend);
        try (ExternalDaemon daemon = new ExternalDaemon(root, hypervisor, imageRoots(spec))) {
            long startMs = daemon.startMillis();
            Thread.sleep(2000); // let start-up garbage and JIT settle before reading the idle RSS
            double idleRss = daemon.rssMib();
            for (int i = 0; i < cycles; i++) {
                ExternalDaemon.Timed created = ok(daemon.post("/v1/sandboxes", with(spec, "c" + i)), 201);
                record(ops, steps, "create", created, "vmCreate", "vmBoot", "ready");
                ok(daemon.delete("/v1/sandboxes/c" + i + "?deleteSnapshots=true"), 204);
            }
            ok(daemon.post("/v1/sandboxes", with(spec, "bench")), 201);
            String snapshot = null;
            for (int i = 0; i < cycles; i++) {
                ExternalDaemon.Timed suspended = ok(daemon.post("/v1/sandboxes/bench/suspend", "{}"), 200);
                snapshot = suspended.body().path("snapshotId").asText();
                record(ops, steps, "suspend", suspended, "pause", "snapshot", "archive");
                record(ops, steps, "resume", ok(daemon.post("/v1/sandboxes/bench/resume", "{}"), 200), "vmRestore", "vmResume");
            }
            ok(daemon.post("/v1/sandboxes/bench/suspend", "{}"), 200);
            for (int i = 0; i < cycles; i++) {
                ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshot).put("id", "k" + i);
                clone.putObject("identity").put("name", "k" + i).put("namespace", "bench");
                record(ops, steps, "clone", ok(daemon.post("/v1/sandboxes", clone.toString()), 201), "vmRestore", "vmResume");
                ok(daemon.delete("/v1/sandboxes/k" + i), 204);
            }
            ok(daemon.delete("/v1/sandboxes/bench?deleteSnapshots=true"), 204);
            for (int i = 0; i < RUNNING; i++) ok(daemon.post("/v1/sandboxes", with(spec, "r" + i)), 201);
            Thread.sleep(1000);
            double busyRss = daemon.rssMib();
            double childrenRss = daemon.childrenRssMib();
            for (int i = 0; i < RUNNING; i++) ok(daemon.delete("/v1/sandboxes/r" + i), 204);
            out.append(table(backend, cycles, ops));
            out.append(stepTable(steps));
            out.append(String.format("%n| daemon | value | goal | met |%n|---|---:|---|---|%n"));
            out.append(String.format("| start → first answer | %d ms | ≤ 1000 ms | %s |%n", startMs, met(startMs <= 1000)));
            out.append(String.format("| idle RSS | %.0f MiB | ≤ 100 MiB | %s |%n", idleRss, met(idleRss <= 100)));
            out.append(String.format("| RSS, %d running sandboxes | %.0f MiB (their CHV + virtiofsd: %.0f MiB) | printed | |%n",
                    RUNNING, busyRss, childrenRss));
        }
        return out.toString();
    }

    private static Path hypervisor(Path root, String backend) throws Exception {
        if (backend.equals("chv")) return Path.of(System.getenv("ATEOM_CLOUD_HYPERVISOR"));
        Path chv = root.resolve("cloud-hypervisor");
        Files.writeString(chv, "#!/bin/sh\nATEOM_STANDIN_BACKEND=" + backend + " exec " + TestTools.standIn() + " \"$@\"\n");
        Files.setPosixFilePermissions(chv, PosixFilePermissions.fromString("rwxr-xr-x"));
        return chv;
    }

    /** The daemon's --image-roots: the directories of the spec's kernel, initramfs and rootfs. */
    private static String imageRoots(ObjectNode spec) {
        List<String> roots = new ArrayList<>();
        for (String file : new String[] {"kernel", "initramfs"}) {
            if (spec.hasNonNull(file)) roots.add(Path.of(spec.get(file).asText()).getParent().toString());
        }
        roots.add(spec.get("rootfs").asText());
        return String.join(",", roots);
    }

    private static ObjectNode spec(Path root, String backend) throws Exception {
        ObjectNode spec = ApiJson.mapper().createObjectNode();
        spec.putObject("identity").put("name", "bench").put("namespace", "bench");
        spec.put("vcpus", 1).put("memoryMib", 128);
        if (backend.equals("none")) {
            Path image = Files.createDirectories(root.resolve("image"));
            Files.createDirectories(image.resolve("rootfs/etc"));
            spec.put("kernel", Files.writeString(image.resolve("vmlinux"), "not a kernel").toString())
                    .put("cmdline", "console=ttyS0").put("rootfs", image.resolve("rootfs").toString());
        } else {
            GuestImage guest = GuestImage.ensureBuilt();
            spec.put("memoryMib", 256).put("kernel", guest.vmlinux().toString()).put("initramfs", guest.initramfs().toString())
                    .put("cmdline", GuestCmdline.defaults().render()).put("rootfs", guest.rootfs().toString());
            spec.putObject("readiness").put("type", "probe").put("port", GuestCmdline.defaults().probePort()).put("timeoutSeconds", 120);
        }
        spec.putArray("durableDirs").add("data");
        ObjectNode volume = spec.putObject("systemInfo").putArray("volumes").addObject().put("name", "identity");
        volume.putArray("sources").addObject().putObject("actorMetadata").putArray("items")
                .add(ApiJson.mapper().createObjectNode().put("field", "name").put("path", "name"));
        return spec;
    }

    private static String with(ObjectNode spec, String id) {
        ObjectNode copy = spec.deepCopy().put("id", id);
        ((ObjectNode) copy.path("identity")).put("name", id);
        return copy.toString();
    }

    private static ExternalDaemon.Timed ok(ExternalDaemon.Timed res, int status) {
        assertThat(res.status()).as("%s", res.body()).isEqualTo(status);
        return res;
    }

    /** The API time, the hypervisor's steps' sum, and every step of the answer's timings. */
    private static void record(Map<String, List<double[]>> ops, Map<String, Map<String, List<Long>>> steps, String op,
                               ExternalDaemon.Timed res, String... hypervisorSteps) {
        JsonNode timings = res.body().path("timingsMs");
        double hv = Arrays.stream(hypervisorSteps).mapToDouble(s -> timings.path(s).asDouble(0)).sum();
        ops.computeIfAbsent(op, k -> new ArrayList<>()).add(new double[] {res.millis(), hv});
        Map<String, List<Long>> byStep = steps.computeIfAbsent(op, k -> new LinkedHashMap<>());
        timings.properties().forEach(e -> byStep.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue().asLong()));
    }

    private static String table(String backend, int cycles, Map<String, List<double[]>> ops) {
        StringBuilder out = new StringBuilder(String.format("%n### %s backend, %d cycles (ms; hypervisor = its own calls in the same"
                + " cycle: create vm.create+vm.boot(+ready), suspend pause+snapshot+archive, resume/clone vm.restore+vm.resume)%n%n", backend, cycles));
        out.append("| op | API p50 | API min | API max | hypervisor p50 | overhead p50 | ratio p50 | goal | met |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---|---|\n");
        ops.forEach((op, samples) -> {
            double[] api = samples.stream().mapToDouble(s -> s[0]).sorted().toArray();
            double[] hv = samples.stream().mapToDouble(s -> s[1]).sorted().toArray();
            double[] over = samples.stream().mapToDouble(s -> s[0] - s[1]).sorted().toArray();
            double[] ratio = samples.stream().mapToDouble(s -> s[0] / Math.max(s[1], 1)).sorted().toArray();
            String goal;
            boolean met;
            switch (op) {
                case "create" -> { goal = "≤ hypervisor + 30 ms"; met = median(over) <= 30; }
                case "suspend" -> { goal = "≤ 1.2×"; met = median(ratio) <= 1.2; }
                case "resume" -> { goal = "≤ 1.3×"; met = median(ratio) <= 1.3; }
                default -> { goal = "≤ 1.5×"; met = median(ratio) <= 1.5; }
            }
            out.append(String.format("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f× | %s | %s |%n", op, median(api), api[0],
                    api[api.length - 1], median(hv), median(over), median(ratio), goal, met(met)));
        });
        return out.toString();
    }

    private static String stepTable(Map<String, Map<String, List<Long>>> steps) {
        StringBuilder out = new StringBuilder("\nsteps as the daemon reports them (p50 ms):\n\n");
        steps.forEach((op, byStep) -> {
            out.append("- ").append(op).append(":");
            byStep.forEach((step, values) -> out.append(" ").append(step).append(" ")
                    .append(values.stream().sorted().toList().get(values.size() / 2)));
            out.append("\n");
        });
        return out.toString();
    }

    private static double median(double[] sorted) { return sorted[sorted.length / 2]; }

    private static String met(boolean met) { return met ? "met" : "not met"; }
}
