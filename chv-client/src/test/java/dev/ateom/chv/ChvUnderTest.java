package dev.ateom.chv;

import dev.ateom.fixtures.chv.ChvStandIn;
import dev.ateom.fixtures.chv.PlayedVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The Cloud Hypervisor the tests drive: the real binary when {@code ATEOM_CLOUD_HYPERVISOR} names one,
 * otherwise the stand-in ({@code dev.ateom.fixtures.chv.ChvStandIn}, {@code none} backend) started as its own
 * process through a launcher script, exactly as the daemon starts {@code cloud-hypervisor}.
 */
final class ChvUnderTest {
    /** How long the stand-in waits for a dead vhost-user socket in tests (real CHV: 60 s, not configurable). */
    static final Duration STANDIN_VHOST_USER_TIMEOUT = Duration.ofMillis(800);

    private ChvUnderTest() {
    }

    static boolean isReal() {
        String real = System.getenv("ATEOM_CLOUD_HYPERVISOR");
        return real != null && !real.isBlank();
    }

    static String describe() {
        return isReal() ? "real cloud-hypervisor " + System.getenv("ATEOM_CLOUD_HYPERVISOR") : "CHV stand-in (none backend)";
    }

    /** The dead-socket wait of boot/restore for the CHV under test. */
    static Duration vhostUserTimeout() {
        return isReal() ? Duration.ofSeconds(60) : STANDIN_VHOST_USER_TIMEOUT;
    }

    static Path binary(Path dir) throws IOException {
        if (isReal()) {
            return Path.of(System.getenv("ATEOM_CLOUD_HYPERVISOR"));
        }
        Path script = dir.resolve("chv-standin");
        if (!Files.exists(script)) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Files.writeString(script, "#!/bin/sh\nexec '" + java + "' -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto "
                    + "--enable-native-access=ALL-UNNAMED -cp '" + System.getProperty("java.class.path")
                    + "' " + ChvStandIn.class.getName() + " \"$@\"\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return script;
    }

    /** The real binary, or the stand-in playing its default release (v54). */
    static ChvRelease defaultRelease() {
        return new ChvRelease(isReal() ? null : PlayedVersion.V54);
    }

    /** Starts a fresh VMM with its files in {@code dir}/{@code name}.*: the real one, or the stand-in playing v54. */
    static ChvProcess start(Path dir, String name) throws IOException {
        return start(dir, name, defaultRelease());
    }

    /** Starts a fresh VMM of {@code release} (the stand-in playing it, or the real binary whatever it is). */
    static ChvProcess start(Path dir, String name, ChvRelease release) throws IOException {
        Map<String, String> environment = new HashMap<>();
        environment.put("ATEOM_STANDIN_VHOST_USER_TIMEOUT", String.valueOf(STANDIN_VHOST_USER_TIMEOUT.toMillis() / 1000.0));
        if (!isReal() && release.played() != null) {
            environment.put("ATEOM_STANDIN_CHV_VERSION", release.played().version());
        }
        var launch = new ChvLaunch(binary(dir), dir.resolve(name + ".api.sock"), dir.resolve(name + ".chv.log"),
                dir.resolve(name + ".chv.out"), 1, Duration.ofSeconds(30), environment);
        return ChvProcess.start(launch);
    }
}
