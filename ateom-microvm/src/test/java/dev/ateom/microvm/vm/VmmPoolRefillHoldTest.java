package dev.ateom.microvm.vm;

import dev.ateom.chv.ChvProcess;
import dev.ateom.microvm.sandbox.TestTools;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The warm pool's refill waits while a bring-up holds it ({@link VmmPool#holdRefill}): a member claimed under a hold is
 * replaced once the hold closes, not while it is open, and a hold never closed delays the refill only by its bound.
 * Starts are counted by a cloud-hypervisor wrapper that notes each one before it runs the stand-in.
 */
class VmmPoolRefillHoldTest {
    private static final Duration FILLED_WITHIN = Duration.ofSeconds(60);

    @TempDir Path dir;

    @Test
    void aMemberClaimedUnderAHoldIsReplacedOnlyOnceTheHoldCloses() throws Exception {
        try (VmmPool pool = filledPool(Duration.ofMinutes(5))) {
            assertThat(starts()).isEqualTo(1);

            VmmPool.RefillHold hold = pool.holdRefill();
            ChvProcess claimed = pool.claim(epoch("e1")).orElseThrow();
            try {
                // an unheld refill starts its member at once (the wrapper notes it before the stand-in's JVM starts)
                Thread.sleep(400);
                assertThat(starts()).as("no member started while the bring-up holds the refill").isEqualTo(1);
                assertThat(pool.readyCount()).isZero();
                hold.close();
                awaitReady(pool);
                assertThat(starts()).as("the claimed member replaced once the hold closed").isEqualTo(2);
            } finally {
                claimed.kill();
            }
        }
    }

    @Test
    void aHoldNeverClosedDelaysTheRefillOnlyByItsBound() throws Exception {
        try (VmmPool pool = filledPool(Duration.ofMillis(300))) {
            pool.holdRefill(); // never closed
            ChvProcess claimed = pool.claim(epoch("e1")).orElseThrow();
            try {
                awaitReady(pool);
                assertThat(starts()).as("refilled past the bound with the hold still open").isEqualTo(2);
            } finally {
                claimed.kill();
            }
        }
    }

    /** A pool of one, its member started and ready, whose refill waits for holds at most {@code refillHoldMax}. */
    private VmmPool filledPool(Duration refillHoldMax) throws Exception {
        VmmPool pool = VmmPool.start(dir.resolve("run"), Optional.of(countingHypervisor()), VmmPool.MemberJails.NONE, 1,
                new PrometheusRegistry(), refillHoldMax);
        try {
            pool.startFilling();
            awaitReady(pool);
            return pool;
        } catch (Throwable e) {
            pool.close();
            throw e;
        }
    }

    private Path countingHypervisor() throws Exception {
        Path chv = dir.resolve("cloud-hypervisor");
        Files.writeString(chv, "#!/bin/sh\necho start >> " + dir.resolve("starts") + "\nexec " + TestTools.standIn() + " \"$@\"\n");
        Files.setPosixFilePermissions(chv, PosixFilePermissions.fromString("rwx------"));
        return chv;
    }

    private long starts() throws Exception {
        Path starts = dir.resolve("starts");
        return Files.exists(starts) ? Files.readAllLines(starts).size() : 0;
    }

    private SandboxLayout.EpochLayout epoch(String name) throws Exception {
        return new SandboxLayout.EpochLayout(Files.createDirectories(dir.resolve("sandbox").resolve(name)));
    }

    private static void awaitReady(VmmPool pool) throws InterruptedException {
        long deadline = System.nanoTime() + FILLED_WITHIN.toNanos();
        while (pool.readyCount() < 1 && System.nanoTime() < deadline) Thread.sleep(20);
        assertThat(pool.readyCount()).as("a member ready within " + FILLED_WITHIN).isEqualTo(1);
    }
}
