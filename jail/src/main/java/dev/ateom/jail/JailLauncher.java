package dev.ateom.jail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where the {@code ateom-jail} binary is: {@code -Dateom.jail.launcher}, {@code $ATEOM_JAIL_LAUNCHER} (bin/ateom sets
 * it to the build's), the build's {@code jail/target/ateom-jail} (tests), or the container image's
 * {@code /usr/bin/ateom-jail}.
 */
public final class JailLauncher {
    /** The exit status of a launch the launcher refused (a jail step failed; the program never ran). */
    public static final int SETUP_FAILED = 125;

    private JailLauncher() {}

    /** The first executable candidate, or empty. */
    public static Optional<Path> find() {
        List<Path> candidates = new ArrayList<>();
        String property = System.getProperty("ateom.jail.launcher");
        if (property != null && !property.isBlank()) candidates.add(Path.of(property));
        String env = System.getenv("ATEOM_JAIL_LAUNCHER");
        if (env != null && !env.isBlank()) candidates.add(Path.of(env));
        String repo = System.getProperty("ateom.repo.root");
        if (repo != null && !repo.isBlank()) candidates.add(Path.of(repo, "jail", "target", "ateom-jail"));
        candidates.add(Path.of("jail", "target", "ateom-jail").toAbsolutePath());
        candidates.add(Path.of("..", "jail", "target", "ateom-jail").toAbsolutePath().normalize());
        candidates.add(Path.of("/usr/bin/ateom-jail"));
        return candidates.stream().filter(Files::isExecutable).findFirst();
    }
}
