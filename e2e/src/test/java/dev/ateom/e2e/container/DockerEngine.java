package dev.ateom.e2e.container;

import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;

/**
 * Decides what a missing Docker engine means: outside CI the container tests are skipped with the reason;
 * in CI ({@code CI} set) they fail, because scripts/test.sh starts dockerd and a skip would hide a broken setup.
 */
final class DockerEngine {

    private DockerEngine() {}

    static void require() {
        // Ryuk (Testcontainers' reaper) is an image from a registry, and none is reachable here: the tests remove
        // their containers themselves. The variable is read by Testcontainers, so it must come from outside.
        if (!Boolean.parseBoolean(System.getenv("TESTCONTAINERS_RYUK_DISABLED"))) {
            throw new IllegalStateException("set TESTCONTAINERS_RYUK_DISABLED=true (e2e/pom.xml does for surefire): "
                    + "the Ryuk image cannot be pulled without a registry");
        }
        if (DockerClientFactory.instance().isDockerAvailable()) return;
        String reason = "no Docker engine at /var/run/docker.sock (scripts/setup.sh installs docker.io and starts dockerd)";
        String ci = System.getenv("CI");
        if (ci != null && !ci.isBlank()) throw new IllegalStateException("CI is set but " + reason);
        Assumptions.abort(reason);
    }
}
