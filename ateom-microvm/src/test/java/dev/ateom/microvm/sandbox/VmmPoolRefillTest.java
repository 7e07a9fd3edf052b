package dev.ateom.microvm.sandbox;

import dev.ateom.chv.ChvProcess;
import dev.ateom.fixtures.wait.Eventually;
import dev.ateom.microvm.vm.BringUpsInFlight;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.microvm.vm.VmmPool;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The warm pool replaces a claimed member only once the bring-ups running are done (or its bound passed): the
 * member's process start would take their CPU. With the CHV stand-in's {@code none} backend, no jail.
 */
class VmmPoolRefillTest {
    @Test
    void aClaimedMemberIsReplacedOnceTheBringUpsRunningAreDone(@TempDir Path dir) throws Exception {
        Path chv = dir.resolve("cloud-hypervisor");
        Files.writeString(chv, "#!/bin/sh\nATEOM_STANDIN_BACKEND=none exec " + TestTools.standIn() + " \"$@\"\n");
        Files.setPosixFilePermissions(chv, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path runDir = Files.createDirectories(dir.resolve("run"));
        // a bound far beyond the test's waits: what ends the wait here is the bring-up's end
        try (VmmPool pool = VmmPool.start(runDir, Optional.of(chv), VmmPool.MemberJails.NONE, 1, Duration.ofMinutes(5), new PrometheusRegistry())) {
            pool.startFilling();
            Eventually.until(Duration.ofSeconds(60), () -> members(runDir).size() == 1 && ready(pool), "the pool to fill",
                    () -> "members: " + members(runDir));
            Set<String> first = members(runDir);

            ChvProcess claimed;
            Path epochDir = Files.createDirectories(dir.resolve("sandbox/e1"));
            try (BringUpsInFlight.Token running = pool.bringUps().begin()) {
                claimed = pool.claim(new SandboxLayout.EpochLayout(epochDir)).orElseThrow();
                Thread.sleep(1000);
                assertThat(members(runDir)).as("no member started while the bring-up runs").isEmpty();
            }
            Eventually.until(Duration.ofSeconds(60), () -> ready(pool), "the pool to refill once the bring-up is done",
                    () -> "members: " + members(runDir));
            assertThat(members(runDir)).hasSize(1).doesNotContainAnyElementsOf(first);
            claimed.kill();
        }
    }

    private static boolean ready(VmmPool pool) {
        return pool.ready() == 1;
    }

    private static Set<String> members(Path runDir) throws Exception {
        Path pool = runDir.resolve(".vmm-pool");
        if (!Files.isDirectory(pool)) return Set.of();
        try (Stream<Path> entries = Files.list(pool)) {
            return entries.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        }
    }
}
