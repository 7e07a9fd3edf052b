package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A commit interrupted at any step leaves, after a restart, the whole snapshot or nothing. */
class CommitCrashTest {
    @TempDir
    Path state;

    /** Apart from {@link #state}, whose listing the test checks, and removed with it (not left beside it in /tmp). */
    @TempDir
    Path logs;

    @ParameterizedTest
    @EnumSource(CommitStep.class)
    void processKilledAfterStep(CommitStep step) throws Exception {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx128m", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-cp", System.getProperty("java.class.path"), CommitCrasher.class.getName(), state.toString(), step.name())
                .redirectErrorStream(true).redirectOutput(logs.resolve(step + ".child.log").toFile()).start();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as("child died at %s", step).isEqualTo(CommitCrasher.DIED_AT_STEP);
        assertCompleteOrAbsentAfterRestart(step);
    }

    @ParameterizedTest
    @EnumSource(CommitStep.class)
    void failureInjectedAfterStep(CommitStep step) throws Exception {
        SnapshotStore store = SnapshotStore.open(state, completed -> {
            if (completed == step) {
                throw new IOException("injected failure after " + completed);
            }
        });
        Path sandbox = SnapshotFixture.sandbox(state, "sb-crashy");
        SnapshotStaging staging = store.stage("crashy"); // deliberately not closed: a crash runs no cleanup
        SnapshotFixture.writeChvFiles(staging.chvDirectory(), true);
        staging.archiveDurable(sandbox.resolve("durable"), ArchiveCompression.NONE, ArchiveProgress.NONE);
        assertThatThrownBy(() -> staging.commit(SnapshotFixture.METADATA)).hasMessageContaining("injected failure after " + step);
        assertCompleteOrAbsentAfterRestart(step);
    }

    private void assertCompleteOrAbsentAfterRestart(CommitStep step) throws IOException {
        SnapshotStore restarted = SnapshotStore.open(state);
        boolean published = step.compareTo(CommitStep.RENAMED) >= 0;
        if (published) {
            assertThat(restarted.list()).containsExactly("crashy");
            Snapshot snapshot = restarted.get("crashy").orElseThrow();
            assertThat(SnapshotInspector.verify(snapshot).problems()).isEmpty();
        } else {
            assertThat(restarted.list()).isEmpty();
            assertThat(restarted.get("crashy")).isEmpty();
        }
        try (Stream<Path> entries = Files.list(restarted.snapshotsDirectory())) {
            assertThat(entries.map(p -> p.getFileName().toString()).toList()).isEqualTo(published ? List.of("crashy") : List.of());
        }
    }
}
