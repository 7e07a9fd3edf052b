package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.fixtures.guest.GuestCmdline;
import dev.ateom.fixtures.guest.GuestImage;
import dev.ateom.microvm.config.ConfigOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Suspend/resume cycles through the daemon's API, step by step (what the API itself reports), with the CHV
 * stand-in's {@code none} backend (daemon overhead only) and its {@code qemu} backend (a real TCG guest).
 * Run: {@code mvn -pl ateom-microvm test -Dtest=LifecycleBenchmark -Dsurefire.excludedGroups=none}.
 */
@Tag("benchmark")
class LifecycleBenchmark {
    private static final int CYCLES = 10;
    @TempDir Path dir;

    @Test
    void suspendResumeCycles() throws Exception {
        for (String backend : List.of("none", "qemu")) {
            Path root = Files.createDirectories(dir.resolve(backend));
            Path chv = root.resolve("cloud-hypervisor");
            Files.writeString(chv, "#!/bin/sh\nATEOM_STANDIN_BACKEND=" + backend + " exec " + TestTools.standIn() + " \"$@\"\n");
            Files.setPosixFilePermissions(chv, PosixFilePermissions.fromString("rwxr-xr-x"));
            GuestImage guest = GuestImage.ensureBuilt();
            String imageRoots = String.join(",", DaemonHarness.imageDir(root).toString(), guest.vmlinux().getParent().toString(),
                    guest.initramfs().getParent().toString(), guest.rootfs().toString());
            Files.createDirectories(DaemonHarness.imageDir(root));
            try (DaemonHarness daemon = new DaemonHarness(root, Map.of(ConfigOption.CLOUD_HYPERVISOR, chv.toString(),
                    ConfigOption.IMAGE_ROOTS, imageRoots))) {
                ObjectNode spec = backend.equals("none") ? daemon.spec("bench", "bench") : guestSpec(daemon);
                Map<String, List<Long>> steps = new LinkedHashMap<>();
                record(steps, "create.", daemon.createOk(spec).body().path("timingsMs"));
                for (int i = 0; i < CYCLES; i++) {
                    record(steps, "suspend.", daemon.post("/v1/sandboxes/bench/suspend", "{}").body().path("timingsMs"));
                    record(steps, "resume.", daemon.post("/v1/sandboxes/bench/resume", "{}").body().path("timingsMs"));
                }
                daemon.delete("/v1/sandboxes/bench?deleteSnapshots=true");
                print(backend, steps);
            }
        }
    }

    private static ObjectNode guestSpec(DaemonHarness daemon) throws Exception {
        GuestImage guest = GuestImage.ensureBuilt();
        ObjectNode spec = daemon.spec("bench", "bench");
        spec.put("memoryMib", 256).put("kernel", guest.vmlinux().toString()).put("initramfs", guest.initramfs().toString())
                .put("cmdline", GuestCmdline.defaults().render()).put("rootfs", guest.rootfs().toString());
        spec.putObject("readiness").put("type", "probe").put("port", GuestCmdline.defaults().probePort()).put("timeoutSeconds", 120);
        return spec;
    }

    private static void record(Map<String, List<Long>> steps, String prefix, JsonNode timings) {
        for (Iterator<Map.Entry<String, JsonNode>> it = timings.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> step = it.next();
            steps.computeIfAbsent(prefix + step.getKey(), k -> new ArrayList<>()).add(step.getValue().asLong());
        }
    }

    private static void print(String backend, Map<String, List<Long>> steps) {
        System.out.printf("%n%s backend, %d suspend/resume cycles (ms)%n", backend, CYCLES);
        System.out.printf("%-22s %6s %6s %6s%n", "step", "p50", "p90", "max");
        steps.forEach((step, values) -> {
            List<Long> sorted = values.stream().sorted().toList();
            System.out.printf("%-22s %6d %6d %6d%n", step, sorted.get(sorted.size() / 2),
                    sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.9) - 1)), sorted.getLast());
        });
    }
}
