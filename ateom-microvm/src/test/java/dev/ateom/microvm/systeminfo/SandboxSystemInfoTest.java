package dev.ateom.microvm.systeminfo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ateom.microvm.systeminfo.source.SourceLimits;
import dev.ateom.microvm.systeminfo.source.VolumeAssembler;
import dev.ateom.microvm.systeminfo.spec.ActorIdentity;
import dev.ateom.microvm.systeminfo.spec.ActorMetadataSource;
import dev.ateom.microvm.systeminfo.spec.ActorMetadataSource.MetadataItem;
import dev.ateom.microvm.systeminfo.spec.FileMode;
import dev.ateom.microvm.systeminfo.spec.HostDirectorySource;
import dev.ateom.microvm.systeminfo.spec.HostDirectorySource.KeyItem;
import dev.ateom.microvm.systeminfo.spec.MetadataField;
import dev.ateom.microvm.systeminfo.spec.SourceSpec;
import dev.ateom.microvm.systeminfo.spec.SystemInfoSpec;
import dev.ateom.microvm.systeminfo.spec.VolumeSpec;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SandboxSystemInfoTest {
    static final ActorIdentity ALICE = new ActorIdentity("alice", "team-a", "uid-1111");
    static final ActorIdentity BOB = new ActorIdentity("bob", "team-b", "uid-2222");

    @TempDir
    Path tmp;

    private SystemInfoService service;

    @BeforeEach
    void start() throws Exception {
        service = new SystemInfoService(SystemInfoSettings.DEFAULT, new PrometheusRegistry());
    }

    @AfterEach
    void stop() throws Exception {
        service.close();
    }

    static VolumeSpec identityVolume() {
        return new VolumeSpec("identity", null, null, null, List.of(SourceSpec.of(new ActorMetadataSource(List.of(
                MetadataItem.of(MetadataField.NAME, "name"),
                MetadataItem.of(MetadataField.NAMESPACE, "namespace"),
                MetadataItem.of(MetadataField.UID, "ids/uid"))))));
    }

    static VolumeSpec tlsVolume(Path source) {
        return new VolumeSpec("tls", new FileMode(0440), 0, 1000, List.of(
                SourceSpec.of(new HostDirectorySource(source.toString(), List.of(
                        new KeyItem("tls.crt", "tls.crt", null), new KeyItem("tls.key", "tls.key", new FileMode(0400))))),
                SourceSpec.of(new ActorMetadataSource(List.of(MetadataItem.of(MetadataField.NAME, "owner-name"))))));
    }

    private static String read(ByteBuffer buffer, FileChannel channel) throws Exception {
        buffer.clear();
        channel.read(buffer, 0);
        buffer.flip();
        return StandardCharsets.UTF_8.decode(buffer).toString();
    }

    @Test
    void createWritesEveryVolumeForTheIdentity() throws Exception {
        KubeletStyleSource secret = new KubeletStyleSource(tmp.resolve("secret"));
        secret.update(Map.of("tls.crt", "CRT", "tls.key", "KEY"));
        Path root = tmp.resolve("sandboxes/s1/system-info");
        SandboxSystemInfo volumes = service.forSandbox("s1", root,
                new SystemInfoSpec(List.of(identityVolume(), tlsVolume(secret.dir()))));

        volumes.writeAll(ALICE);

        assertThat(Files.readString(root.resolve("identity/name"))).isEqualTo("alice");
        assertThat(Files.readString(root.resolve("identity/namespace"))).isEqualTo("team-a");
        assertThat(Files.readString(root.resolve("identity/ids/uid"))).isEqualTo("uid-1111");
        assertThat(Files.getAttribute(root.resolve("identity/..data/name"), "unix:mode")).isEqualTo(0100444);
        assertThat(Files.readString(root.resolve("tls/tls.crt"))).isEqualTo("CRT");
        assertThat(Files.readString(root.resolve("tls/owner-name"))).isEqualTo("alice");
        assertThat(Files.getAttribute(root.resolve("tls/..data/tls.key"), "unix:mode")).isEqualTo(0100400);
        assertThat(Files.getAttribute(root.resolve("tls/..data/tls.crt"), "unix:mode")).isEqualTo(0100440);
        assertThat(Files.getAttribute(root.resolve("tls/..data/tls.crt"), "unix:gid")).isEqualTo(1000);
    }

    @Test
    void aSyncOfMetadataOnlyVolumesHasNothingToDo() throws Exception {
        SandboxSystemInfo volumes = service.forSandbox("s1", tmp.resolve("si"), new SystemInfoSpec(List.of(identityVolume())));
        volumes.writeAll(ALICE);
        try (SystemInfoSync sync = volumes.startSync(ALICE)) {
            assertThat(sync.awaitFirstPass(Duration.ofMillis(1))).isTrue();
            assertThat(sync.failingVolumes()).isEmpty();
        }
        assertThat(service.watcher().watchCount()).isZero();
    }

    @Test
    void createFailsNamingTheSourceAndRemovesWhatItWrote() throws Exception {
        Path root = tmp.resolve("sandboxes/s1/system-info");
        SandboxSystemInfo volumes = service.forSandbox("s1", root,
                new SystemInfoSpec(List.of(identityVolume(), tlsVolume(tmp.resolve("no-such-secret")))));

        assertThatThrownBy(() -> volumes.writeAll(ALICE))
                .isInstanceOf(SystemInfoException.class)
                .hasMessageContaining("sandbox s1")
                .hasMessageContaining("volume 'tls' sources[0]: host directory " + tmp.resolve("no-such-secret") + " does not exist");
        assertThat(root.resolve("identity")).doesNotExist();
        assertThat(root.resolve("tls")).doesNotExist();
    }

    /**
     * Invariant 3 and 4 on the host: descriptors the guest opened (the identity probe's at boot, a
     * certificate rotated twice while running) point at paths that, after the saved commit on
     * resume as another actor, hold the newest content.
     */
    @Test
    void resumeAsAnotherActorRewritesEveryPathAHeldDescriptorCanFollow() throws Exception {
        KubeletStyleSource secret = new KubeletStyleSource(tmp.resolve("secret"));
        secret.update(Map.of("tls.crt", "CRT-1", "tls.key", "KEY-1"));
        Path root = tmp.resolve("sandboxes/s1/system-info");
        VolumeSpec tls = tlsVolume(secret.dir());
        SandboxSystemInfo volumes = service.forSandbox("s1", root, new SystemInfoSpec(List.of(identityVolume(), tls)));
        volumes.writeAll(ALICE);

        ByteBuffer buffer = ByteBuffer.allocate(64);
        try (FileChannel identityFd = FileChannel.open(root.resolve("identity/name"));
             FileChannel certFd = FileChannel.open(root.resolve("tls/tls.crt"))) {
            long identityIno = HeldDescriptors.inode(root.resolve("identity/name"));
            long certIno = HeldDescriptors.inode(root.resolve("tls/tls.crt"));
            // two rotations while running
            for (int gen = 2; gen <= 3; gen++) {
                secret.update(Map.of("tls.crt", "CRT-" + gen, "tls.key", "KEY-" + gen));
                volumes.writer(tls).commitWhileRunning(new VolumeAssembler(SourceLimits.DEFAULT)
                        .assemble(tls, ALICE).content());
            }
            assertThat(read(buffer, certFd)).as("held across running commits: old content").isEqualTo("CRT-1");
            assertThat(read(buffer, identityFd)).isEqualTo("alice");
            assertThat(Files.readString(root.resolve("tls/tls.crt"))).isEqualTo("CRT-3");

            // save: the paths find-paths records
            String identityPath = HeldDescriptors.pathOf(identityIno).orElseThrow();
            String certPath = HeldDescriptors.pathOf(certIno).orElseThrow();
            assertThat(identityPath).isEqualTo(root.resolve("identity/..data/name").toString());
            assertThat(certPath).startsWith(root.resolve("tls/..gen-").toString()).endsWith("/tls.crt");

            // while saved: another secret rotation, and the resume is as bob
            secret.update(Map.of("tls.crt", "CRT-4", "tls.key", "KEY-4"));
            RegenerationReport report = volumes.regenerateWhileSaved(BOB);

            assertThat(report.complete()).isTrue();
            assertThat(Files.readString(Path.of(identityPath))).isEqualTo("bob");
            assertThat(Files.readString(Path.of(certPath))).isEqualTo("CRT-4");
            assertThat(Files.readString(root.resolve("tls/tls.crt"))).isEqualTo("CRT-4");
            assertThat(Files.readString(root.resolve("tls/owner-name"))).isEqualTo("bob");
            assertThat(Files.readString(root.resolve("identity/ids/uid"))).isEqualTo("uid-2222");
            for (Path generation : volumes.writer(tls).generationsNewestFirst()) {
                assertThat(Files.readString(generation.resolve("tls.key"))).isEqualTo("KEY-4");
            }
        }
    }

    @Test
    void cloneWritesIntoANewEmptyDirectoryAndKeepsGoingWhenASourceIsMissing() throws Exception {
        Path root = tmp.resolve("sandboxes/clone/system-info");
        SandboxSystemInfo volumes = service.forSandbox("clone", root,
                new SystemInfoSpec(List.of(identityVolume(), tlsVolume(tmp.resolve("absent")))));

        RegenerationReport report = volumes.regenerateWhileSaved(BOB);

        assertThat(report.sourceFailures()).singleElement().asString()
                .contains("volume 'tls' sources[0]: host directory " + tmp.resolve("absent") + " does not exist");
        assertThat(Files.readString(root.resolve("identity/name"))).isEqualTo("bob");
        assertThat(Files.readString(root.resolve("tls/owner-name"))).isEqualTo("bob");
        assertThat(root.resolve("tls/tls.crt")).doesNotExist();
    }

    @Test
    void resumeKeepsTheLastGoodSecretWhenItsSourceFailsAndStillRefreshesTheIdentity() throws Exception {
        KubeletStyleSource secret = new KubeletStyleSource(tmp.resolve("secret"));
        secret.update(Map.of("tls.crt", "CRT-1", "tls.key", "KEY-1"));
        Path root = tmp.resolve("sandboxes/s1/system-info");
        VolumeSpec all = new VolumeSpec("all", null, null, null, List.of(
                SourceSpec.of(new HostDirectorySource(secret.dir().toString(), null)),
                SourceSpec.of(new ActorMetadataSource(List.of(MetadataItem.of(MetadataField.UID, "uid"))))));
        SandboxSystemInfo volumes = service.forSandbox("s1", root, new SystemInfoSpec(List.of(tlsVolume(secret.dir()), all)));
        volumes.writeAll(ALICE);

        KubeletStyleSource.deleteTree(secret.dir());
        RegenerationReport report = volumes.regenerateWhileSaved(BOB);

        assertThat(report.sourceFailures()).hasSize(2).allSatisfy(f -> assertThat(f).contains("does not exist"));
        assertThat(Files.readString(root.resolve("tls/tls.crt"))).isEqualTo("CRT-1");
        assertThat(Files.getAttribute(root.resolve("tls/..data/tls.key"), "unix:mode")).isEqualTo(0100400);
        assertThat(Files.readString(root.resolve("tls/owner-name"))).isEqualTo("bob");
        assertThat(Files.readString(root.resolve("all/tls.key"))).isEqualTo("KEY-1");
        assertThat(Files.readString(root.resolve("all/uid"))).isEqualTo("uid-2222");
    }

    @Test
    void resumeKeepsHostContentWhenTheSourceGrewPastTheLimits() throws Exception {
        SystemInfoService small = new SystemInfoService(
                SystemInfoSettings.DEFAULT.withLimits(new SourceLimits(100, 1 << 20, 1 << 20)), new PrometheusRegistry());
        try (small) {
            Path source = Files.createDirectories(tmp.resolve("config"));
            Files.writeString(source.resolve("app.conf"), "v1");
            Path root = tmp.resolve("sandboxes/s1/system-info");
            VolumeSpec config = new VolumeSpec("config", null, null, null, List.of(
                    SourceSpec.of(new HostDirectorySource(source.toString(), null)),
                    SourceSpec.of(new ActorMetadataSource(List.of(MetadataItem.of(MetadataField.NAME, "actor"))))));
            SandboxSystemInfo volumes = small.forSandbox("s1", root, new SystemInfoSpec(List.of(config)));
            volumes.writeAll(ALICE);
            for (int i = 0; i < 2; i++) {
                try (RandomAccessFile f = new RandomAccessFile(source.resolve("big" + i).toFile(), "rw")) {
                    f.setLength(900_000);
                }
            }

            RegenerationReport report = volumes.regenerateWhileSaved(BOB);

            assertThat(report.sourceFailures()).singleElement().asString()
                    .contains("would hold 1800002 bytes, more than the limit of 1048576");
            assertThat(Files.readString(root.resolve("config/app.conf"))).isEqualTo("v1");
            assertThat(Files.readString(root.resolve("config/actor"))).isEqualTo("bob");
            assertThat(Files.exists(root.resolve("config/big0"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        }
    }
}
