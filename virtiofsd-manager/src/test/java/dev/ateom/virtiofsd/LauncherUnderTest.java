package dev.ateom.virtiofsd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/** A test class's launcher of the real virtiofsd and its temp root; closing checks that nothing was leaked. */
record LauncherUnderTest(Path base, VirtiofsdLauncher launcher) {

    static LauncherUnderTest open(String prefix) throws IOException {
        return new LauncherUnderTest(Files.createTempDirectory(Path.of("/tmp"), prefix), TestVirtiofsd.launcher());
    }

    void closeAndCheckNothingLeaked() throws IOException {
        launcher.close();
        assertThat(ProcessLeaks.mentioning(base)).as("processes left behind").isEmpty();
        assertThat(ProcessLeaks.virtiofsdChildrenOfThisJvm()).as("virtiofsd children of the test JVM").isEmpty();
        try (var paths = Files.walk(base)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
