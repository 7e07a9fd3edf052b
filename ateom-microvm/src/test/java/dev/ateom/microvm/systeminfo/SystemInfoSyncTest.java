package dev.ateom.microvm.systeminfo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.fixtures.wait.Eventually;
import dev.ateom.microvm.systeminfo.source.VolumeAssembler;
import dev.ateom.microvm.systeminfo.spec.ActorMetadataSource;
import dev.ateom.microvm.systeminfo.spec.ActorMetadataSource.MetadataItem;
import dev.ateom.microvm.systeminfo.spec.HostDirectorySource;
import dev.ateom.microvm.systeminfo.spec.MetadataField;
import dev.ateom.microvm.systeminfo.spec.SourceSpec;
import dev.ateom.microvm.systeminfo.spec.SystemInfoSpec;
import dev.ateom.microvm.systeminfo.spec.VolumeSpec;
import dev.ateom.microvm.systeminfo.sync.SourceWatcher;
import dev.ateom.microvm.systeminfo.sync.SystemInfoMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SystemInfoSyncTest {
    private static final SystemInfoSettings FAST_RETRY = SystemInfoSettings.DEFAULT.withRetryInterval(Duration.ofMillis(200));

    @TempDir
    Path tmp;

    private SystemInfoService service;
    private Path root;

    @BeforeEach
    void start() throws Exception {
        service = new SystemInfoService(FAST_RETRY, new PrometheusRegistry());
        root = tmp.resolve("sandboxes/s1/system-info");
    }

    @AfterEach
    void stop() throws Exception {
        service.close();
    }

    private static VolumeSpec mirror(String name, Path source) {
        return new VolumeSpec(name, null, null, null, List.of(
                SourceSpec.of(new HostDirectorySource(source.toString(), null)),
                SourceSpec.of(new ActorMetadataSource(List.of(MetadataItem.of(MetadataField.NAME, "actor-name"))))));
    }

    /** The user-visible files of a volume or source, read through their links; '..' names excluded. */
    private static Map<String, String> visibleFiles(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir, 1)) {
            for (Path top : walk.skip(1).filter(p -> !p.getFileName().toString().startsWith("..")).toList()) {
                if (Files.isDirectory(top)) {
                    try (Stream<Path> inner = Files.walk(top, FileVisitOption.FOLLOW_LINKS)) {
                        for (Path f : inner.filter(Files::isRegularFile).toList()) {
                            out.put(dir.relativize(f).toString(), Files.readString(f));
                        }
                    }
                } else {
                    out.put(top.getFileName().toString(), Files.readString(top));
                }
            }
        }
        return out;
    }

    private static boolean holds(Path file, String content) {
        try {
            return Files.readString(file).equals(content);
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void aKubeletStyleSourceUpdatedAHundredTimesIsMirroredEachTimeWithinASecond() throws Exception {
        KubeletStyleSource secret = new KubeletStyleSource(tmp.resolve("secret"));
        secret.update(Map.of("tls.crt", "crt-0", "tls.key", "key-0"));
        SandboxSystemInfo volumes = service.forSandbox("s1", root, new SystemInfoSpec(List.of(mirror("tls", secret.dir()))));
        volumes.writeAll(SandboxSystemInfoTest.ALICE);
        Path vol = root.resolve("tls");

        try (SystemInfoSync sync = volumes.startSync(SandboxSystemInfoTest.ALICE)) {
            assertThat(sync.awaitFirstPass(Duration.ofSeconds(5))).isTrue();
            for (int i = 1; i <= 100; i++) {
                Map<String, String> payload = new TreeMap<>(Map.of("tls.crt", "crt-" + i, "tls.key", "key-" + i));
                if (i % 10 == 0) {
                    payload.put("ca/bundle.pem", "ca-" + i); // names come and go too
                }
                secret.update(payload);
                String expected = "crt-" + i;
                Eventually.until(Duration.ofSeconds(1), () -> holds(vol.resolve("tls.crt"), expected), "update " + i + " to be visible");
                // one generation: the key of the same update is there too
                assertThat(Files.readString(vol.resolve("..data/tls.key"))).isEqualTo("key-" + i);
            }
            assertThat(sync.failingVolumes()).isEmpty();
        }

        Map<String, String> expected = visibleFiles(secret.dir());
        expected.put("actor-name", "alice");
        assertThat(expected).containsEntry("ca/bundle.pem", "ca-100");
        assertThat(visibleFiles(vol)).isEqualTo(expected);
        SystemInfoMetrics metrics = service.metrics();
        assertThat(metrics.commits("tls")).isEqualTo(100);
        assertThat(metrics.lagObservations()).isEqualTo(100);
        assertThat(metrics.errors("tls")).isZero();
        assertThat(metrics.repairs("tls")).isZero();
    }

    @Test
    void reconciliationRepairsAChangeTheWatcherMissed() throws Exception {
        Path source = Files.createDirectories(tmp.resolve("config"));
        Files.writeString(source.resolve("app.conf"), "v1");
        VolumeSpec config = mirror("config", source);
        // retries (which also re-read the source) only after the test is over: this is reconciliation's job
        SystemInfoSettings settings = FAST_RETRY.withReconcileInterval(Duration.ofMillis(300)).withRetryInterval(Duration.ofMinutes(1));
        SandboxSystemInfo volumes = service.forSandbox("s1", root, new SystemInfoSpec(List.of(config)));
        volumes.writeAll(SandboxSystemInfoTest.ALICE);
        SystemInfoMetrics metrics = new SystemInfoMetrics(new PrometheusRegistry());
        SourceWatcher watcher = new SourceWatcher();
        watcher.start();
        try (SystemInfoSync sync = new SystemInfoSync("s1", Map.of(config, volumes.writer(config)), SandboxSystemInfoTest.ALICE,
                new VolumeAssembler(settings.limits()), watcher, settings, metrics)) {
            sync.start();
            assertThat(sync.awaitFirstPass(Duration.ofSeconds(5))).isTrue();
            watcher.close(); // no more events: only reconciliation can notice
            Files.writeString(source.resolve("app.conf"), "v2");
            Files.writeString(root.resolve("config/..data/actor-name"), "tampered"); // and a change on the volume side

            Eventually.until(Duration.ofSeconds(5), () -> holds(root.resolve("config/app.conf"), "v2"), "config/app.conf to hold v2");
            Eventually.until(Duration.ofSeconds(1), () -> holds(root.resolve("config/actor-name"), "alice"), "the tampered actor-name to be repaired");
            // the repair is counted just after its commit becomes visible: wait for the count, then require exactly one
            Eventually.until(Duration.ofSeconds(1), () -> metrics.repairs("config") >= 1, "the repair to be counted");
            assertThat(metrics.repairs("config")).isEqualTo(1);
            assertThat(metrics.lagObservations()).as("not an event").isZero();
        }
    }

    @Test
    void aRestartedSyncRepairsWhatChangedWhileItWasStopped() throws Exception {
        Path source = Files.createDirectories(tmp.resolve("config"));
        Files.writeString(source.resolve("app.conf"), "v1");
        SandboxSystemInfo volumes = service.forSandbox("s1", root, new SystemInfoSpec(List.of(mirror("config", source))));
        volumes.writeAll(SandboxSystemInfoTest.ALICE);
        SystemInfoSync first = volumes.startSync(SandboxSystemInfoTest.ALICE);
        assertThat(first.awaitFirstPass(Duration.ofSeconds(5))).isTrue();
        first.close();
        assertThat(service.watcher().watchCount()).as("closing releases every watch").isZero();

        Files.writeString(source.resolve("app.conf"), "v2");
        // close() joined the sync's thread and dropped every watch: nothing is left that could write, so no wait
        assertThat(Files.readString(root.resolve("config/app.conf"))).as("closed: no writes").isEqualTo("v1");

        try (SystemInfoSync sync = volumes.startSync(SandboxSystemInfoTest.ALICE)) {
            assertThat(sync.awaitFirstPass(Duration.ofSeconds(5))).isTrue();
            assertThat(Files.readString(root.resolve("config/app.conf"))).isEqualTo("v2");
        }
        assertThat(service.metrics().repairs("config")).isEqualTo(1);
    }

    @Test
    void aVanishedSourceKeepsTheLastGoodGenerationAndRecoversWhenItReturns() throws Exception {
        KubeletStyleSource secret = new KubeletStyleSource(tmp.resolve("secret"));
        secret.update(Map.of("token", "t1"));
        SandboxSystemInfo volumes = service.forSandbox("s1", root, new SystemInfoSpec(List.of(mirror("sa", secret.dir()))));
        volumes.writeAll(SandboxSystemInfoTest.ALICE);

        try (SystemInfoSync sync = volumes.startSync(SandboxSystemInfoTest.ALICE)) {
            assertThat(sync.awaitFirstPass(Duration.ofSeconds(5))).isTrue();
            KubeletStyleSource.deleteTree(secret.dir());
            Eventually.until(Duration.ofSeconds(2), () -> sync.failingVolumes().containsKey("sa"), "volume sa to be reported failing");
            assertThat(sync.failingVolumes().get("sa")).contains("host directory " + secret.dir() + " does not exist");
            assertThat(Files.readString(root.resolve("sa/token"))).isEqualTo("t1");

            Files.writeString(secret.dir(), "a file where the directory was");
            Eventually.until(Duration.ofSeconds(2), () -> sync.failingVolumes().getOrDefault("sa", "").contains("is not a directory"), "volume sa to fail with 'is not a directory'", () -> sync.failingVolumes().toString());
            assertThat(Files.readString(root.resolve("sa/token"))).isEqualTo("t1");

            Files.delete(secret.dir());
            new KubeletStyleSource(secret.dir()).update(Map.of("token", "t2"));
            Eventually.until(Duration.ofSeconds(2), () -> holds(root.resolve("sa/token"), "t2"), "sa/token to hold t2");
            Eventually.until(Duration.ofSeconds(1), () -> sync.failingVolumes().isEmpty(), "no volume to be failing", () -> sync.failingVolumes().toString());

            // watched again after its return: a later update arrives by event, not only by retry
            new KubeletStyleSource(secret.dir()).update(Map.of("token", "t3"));
            Eventually.until(Duration.ofSeconds(1), () -> holds(root.resolve("sa/token"), "t3"), "sa/token to hold t3");
        }
        assertThat(service.metrics().errors("sa")).isPositive();
    }

    @Test
    void mirrorsThousandsOfFiles() throws Exception {
        Path source = Files.createDirectories(tmp.resolve("many/sub"));
        for (int i = 0; i < 2500; i++) {
            Files.writeString(source.resolveSibling(i % 2 == 0 ? "f" + i : "sub/f" + i), "v1-" + i);
        }
        SandboxSystemInfo volumes = service.forSandbox("s1", root,
                new SystemInfoSpec(List.of(mirror("many", source.getParent()))));
        volumes.writeAll(SandboxSystemInfoTest.ALICE);
        Path vol = root.resolve("many");
        Map<String, String> written = visibleFiles(vol);
        assertThat(written.size()).isEqualTo(2501);
        assertThat(written).containsEntry("sub/f1", "v1-1").containsEntry("f2498", "v1-2498");

        try (SystemInfoSync sync = volumes.startSync(SandboxSystemInfoTest.ALICE)) {
            assertThat(sync.awaitFirstPass(Duration.ofSeconds(10))).isTrue();
            Files.writeString(source.resolve("f2499"), "v2"); // in a subdirectory: watched too
            Eventually.until(Duration.ofSeconds(5), () -> holds(vol.resolve("sub/f2499"), "v2"), "sub/f2499 to hold v2");
            Files.delete(source.getParent().resolve("f0"));
            Eventually.until(Duration.ofSeconds(5), () -> !Files.exists(vol.resolve("f0"), LinkOption.NOFOLLOW_LINKS), "f0 to be gone");
            assertThat(sync.failingVolumes()).isEmpty();
        }
        assertThat(visibleFiles(vol).size()).isEqualTo(2500);
    }

    @Test
    void hostileEntriesInTheSourceKeepTheLastGoodGeneration() throws Exception {
        Path source = Files.createDirectories(tmp.resolve("config"));
        Files.writeString(source.resolve("app.conf"), "v1");
        Files.writeString(tmp.resolve("host-secret"), "must not leak");
        SandboxSystemInfo volumes = service.forSandbox("s1", root, new SystemInfoSpec(List.of(mirror("config", source))));
        volumes.writeAll(SandboxSystemInfoTest.ALICE);

        try (SystemInfoSync sync = volumes.startSync(SandboxSystemInfoTest.ALICE)) {
            assertThat(sync.awaitFirstPass(Duration.ofSeconds(5))).isTrue();
            Files.createSymbolicLink(source.resolve("escape"), tmp.resolve("host-secret"));
            expectFailureThenRecovery(sync, "outside the source directory", source.resolve("escape"), "v2");

            assertThat(new ProcessBuilder("mkfifo", source.resolve("pipe").toString()).start().waitFor()).isZero();
            expectFailureThenRecovery(sync, "is a FIFO, socket or device", source.resolve("pipe"), "v3");

            try (RandomAccessFile huge = new RandomAccessFile(source.resolve("huge").toFile(), "rw")) {
                huge.setLength(1L << 30);
            }
            expectFailureThenRecovery(sync, "has 1073741824 bytes, more than the limit", source.resolve("huge"), "v4");
        }
        assertThat(visibleFiles(root.resolve("config"))).containsOnlyKeys("app.conf", "actor-name");
    }

    private void expectFailureThenRecovery(SystemInfoSync sync, String reason, Path hostile, String next) throws Exception {
        Eventually.until(Duration.ofSeconds(2), () -> sync.failingVolumes().getOrDefault("config", "").contains(reason),
                "failure '" + reason + "' to be reported", () -> sync.failingVolumes().toString());
        Path volume = root.resolve("config");
        assertThat(Files.exists(volume.resolve(hostile.getFileName()), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.readString(volume.resolve("app.conf"))).as("last good generation kept").isNotEqualTo(next);
        Files.delete(hostile);
        Files.writeString(hostile.resolveSibling("app.conf"), next);
        Eventually.until(Duration.ofSeconds(2), () -> holds(volume.resolve("app.conf"), next), "app.conf to hold " + next);
        Eventually.until(Duration.ofSeconds(1), () -> sync.failingVolumes().isEmpty(), "no volume to be failing", () -> sync.failingVolumes().toString());
    }
}
