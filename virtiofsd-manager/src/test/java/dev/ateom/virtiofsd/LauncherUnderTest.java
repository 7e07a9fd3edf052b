package dev.ateom.virtiofsd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's launcher of the real virtiofsd and its temp root, as a class-level extension
 * ({@code @RegisterExtension static final}): made before the class's first test, closed after its last with a check
 * that nothing was leaked (no process mentioning the root, no virtiofsd child of the test JVM), then the root removed.
 */
final class LauncherUnderTest implements BeforeAllCallback, AfterAllCallback {
    private final String prefix;
    private Path base;
    private VirtiofsdLauncher launcher;

    /** @param prefix the temp root's name prefix under /tmp (short: socket paths under it must fit 108 bytes) */
    LauncherUnderTest(String prefix) {
        this.prefix = prefix;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        base = Files.createTempDirectory(Path.of("/tmp"), prefix);
        launcher = TestVirtiofsd.launcher();
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        launcher.close();
        assertThat(ProcessLeaks.mentioning(base)).as("processes left behind").isEmpty();
        assertThat(ProcessLeaks.virtiofsdChildrenOfThisJvm()).as("virtiofsd children of the test JVM").isEmpty();
        try (var paths = Files.walk(base)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** The temp root, for the test's dirs and sockets. */
    Path base() { return base; }

    VirtiofsdLauncher launcher() { return launcher; }
}
