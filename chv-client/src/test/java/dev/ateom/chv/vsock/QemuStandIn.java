package dev.ateom.chv.vsock;

import dev.ateom.fixtures.chv.ChvStandIn;
import dev.ateom.chv.ChvLaunch;
import dev.ateom.chv.ChvProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;

/**
 * Starts the CHV stand-in with the {@code qemu} backend as its own process, from this test JVM's class path. Its temp
 * dir is the test's {@code dir}: the QEMU backend keeps its private dir there, which a stand-in killed with SIGKILL
 * (as QemuStandInDeathTest does) cannot remove, so it goes with the test's dir instead of staying in /tmp.
 */
final class QemuStandIn {
    private QemuStandIn() {
    }

    static ChvProcess start(Path dir, String name, Duration vhostUserTimeout) throws IOException {
        Path script = dir.resolve("chv-standin");
        if (!Files.exists(script)) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Files.writeString(script, "#!/bin/sh\nexec '" + java + "' -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto "
                    + "-Djava.io.tmpdir='" + dir + "' --enable-native-access=ALL-UNNAMED -cp '" + System.getProperty("java.class.path")
                    + "' " + ChvStandIn.class.getName() + " \"$@\"\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        var launch = new ChvLaunch(script, dir.resolve(name + ".api.sock"), dir.resolve(name + ".chv.log"),
                dir.resolve(name + ".chv.out"), 1, Duration.ofSeconds(30),
                Map.of("ATEOM_STANDIN_BACKEND", "qemu",
                        "ATEOM_STANDIN_VHOST_USER_TIMEOUT", String.valueOf(vhostUserTimeout.toMillis() / 1000.0)));
        return ChvProcess.start(launch);
    }
}
