package dev.ateom.microvm.vm;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/** A pool's close when it never filled: a daemon that stops before its tools were found (or refused its hypervisor). */
class VmmPoolCloseTest {
    @Test
    void aPoolThatNeverFilledClosesWithoutErrorAndLeavesNoDir(@TempDir Path runDir) {
        VmmPool pool = VmmPool.start(runDir, Optional.of(Path.of("/nonexistent/cloud-hypervisor")), VmmPool.MemberJails.NONE, 2,
                new PrometheusRegistry());
        assertThat(runDir.resolve(".vmm-pool")).isDirectory();

        // joining the refiller that never started threw IllegalThreadStateException, and the daemon's stop skipped the rest
        assertThatCode(pool::close).doesNotThrowAnyException();
        assertThat(runDir.resolve(".vmm-pool")).doesNotExist();
    }
}
