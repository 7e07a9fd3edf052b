package dev.ateom.e2e.container;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.startupcheck.OneShotStartupCheckStrategy;
import org.testcontainers.utility.MountableFile;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JNI libraries the daemon loads from its jars (JNA, zstd-jni) work in the FROM-scratch image: they need its libc,
 * its loader and a writable /tmp, none of which a request in {@link DaemonContainerTest} reaches without CHV.
 */
class NativeLibrariesInImageTest {

    private static final String PROBE_CLASS = NativeAccessProbe.class.getName().replace('.', '/') + ".class";

    @BeforeAll
    static void image() throws Exception {
        DockerEngine.require();
        DaemonImage.ensureBuilt();
    }

    @Test
    void jnaAndZstdWorkWithTheImagesJvmAndLibc() {
        try (GenericContainer<?> probe = new GenericContainer<>(DaemonImage.NAME)
                .withCopyFileToContainer(MountableFile.forClasspathResource(PROBE_CLASS), "/probe/" + PROBE_CLASS)
                // the image's own JVM and classpath, with the probe in front instead of the daemon's main class
                .withCreateContainerCmdModifier(cmd -> cmd.withEntrypoint("/opt/java/bin/java", "--enable-native-access=ALL-UNNAMED",
                        "-cp", "/probe:/opt/ateom/ateom-microvm.jar:/opt/ateom/lib/*", NativeAccessProbe.class.getName()))
                .withStartupCheckStrategy(new OneShotStartupCheckStrategy().withTimeout(Duration.ofSeconds(60)))) {
            probe.start(); // fails unless the probe exits 0

            assertThat(probe.getLogs()).contains("renameat2 exchange: ok", "zstd round trip: ok");
        }
    }
}
