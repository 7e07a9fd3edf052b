package dev.ateom.virtiofsd;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Where the tests find the real virtiofsd, and a launcher with test-friendly timings. */
final class TestVirtiofsd {

    private static VirtiofsdBinary probed;

    private TestVirtiofsd() {}

    static Path binaryPath() {
        String fromEnv = System.getenv("ATEOM_VIRTIOFSD");
        if (fromEnv != null && !fromEnv.isBlank()) return Path.of(fromEnv);
        Path repo = Path.of(System.getProperty("ateom.repo.root", ".")).toAbsolutePath();
        // the repo root, or above it when this module was built on its own (-f virtiofsd-manager/pom.xml)
        for (Path dir = repo; dir != null; dir = dir.getParent()) {
            Path bundled = dir.resolve(".tools/virtiofsd/bin/virtiofsd");
            if (Files.isExecutable(bundled)) return bundled;
        }
        throw new IllegalStateException("virtiofsd not found: set ATEOM_VIRTIOFSD or run scripts/setup.sh (looked in "
                + repo + "/.tools/virtiofsd/bin and above)");
    }

    static synchronized VirtiofsdBinary binary() {
        if (probed == null) probed = VirtiofsdBinary.probe(binaryPath());
        return probed;
    }

    static VirtiofsdLauncher launcher() {
        return new VirtiofsdLauncher(binary(), VirtiofsdLauncher.Settings.DEFAULT.withStopGrace(Duration.ofSeconds(2)));
    }
}
