package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** s3proxy 2.7.0 answers 200 to a second If-None-Match: * PUT and overwrites the object: the probe must say so. */
class ProbeOldS3proxyTest {
    @TempDir
    Path work;

    @Test
    void s3proxy270IgnoresConditionalWritesAndTheProbeSaysSo() throws IOException {
        try (S3ProxyServer old = S3ProxyServer.start("2.7.0", work)) {
            old.createBucket("probe-bucket");
            CpuProfile cpu = new CpuProfile("GenuineIntel", "6", "85", "", List.of());
            try (RemoteSnapshotStore store = RemoteSnapshotStore.open(old.settings("probe-bucket", ""), work.resolve("chunks"), 1 << 20, cpu)) {
                ProbeResult probe = store.probe();
                System.out.println("s3proxy 2.7.0 probe: " + probe);
                assertThat(probe.conditionalWrites()).isEqualTo(ConditionalWrites.IGNORED);
                assertThat(probe.detail()).contains("overwrote");
                assertThat(probe.leasesSafe()).isFalse();
            }
        }
    }
}
