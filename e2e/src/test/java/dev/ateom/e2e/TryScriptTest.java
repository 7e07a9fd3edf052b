package dev.ateom.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The newcomer's tour, {@code scripts/try.sh}, as the README tells people to run it (with {@code --no-build}: the
 * reactor has just built what it uses), so it does not rot: it must end well, every step must print the result it
 * promises (the guest's identity, the rotated secret's new value, the clone's and the forks' own identities, ...),
 * and it must leave no process and no temp dir behind.
 */
class TryScriptTest {
    /** Generous: CI shares its cores; the tour is about 90 s on an idle 2-core machine. */
    private static final long LIMIT_MINUTES = 15;
    private static final String TIME = "  \\(\\d+\\.\\d s\\)$";

    @TempDir Path dir;

    @Test
    void theTourRunsEveryStepAndLeavesNothingBehind() throws Exception {
        E2ePaths.ateomCommand();
        E2ePaths.standIn();
        Path log = dir.resolve("tour.log");
        Process tour = new ProcessBuilder("bash", E2ePaths.repoRoot().resolve("scripts/try.sh").toString(), "--no-build")
                .directory(E2ePaths.repoRoot().toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
        boolean ended = tour.waitFor(LIMIT_MINUTES, TimeUnit.MINUTES);
        if (!ended) {
            tour.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            tour.destroyForcibly().waitFor();
        }
        List<String> lines = Files.readAllLines(log);
        System.out.println(String.join("\n", lines));
        assertThat(ended).as("the tour ended within %d minutes", LIMIT_MINUTES).isTrue();
        assertThat(tour.exitValue()).as("exit code of scripts/try.sh (its output is above)").isZero();

        String out = String.join("\n", lines);
        assertThat(out).containsPattern("(?m)^  => created: tour-a RUNNING" + TIME)
                .containsPattern("(?m)^  => identity: tour-a" + TIME)
                .containsPattern("(?m)^  => durable file on the host: hello from the tour" + TIME)
                .containsPattern("(?m)^  => secret in the guest: token-v2" + TIME)
                .containsPattern("(?m)^  => suspended: tour-a, snapshot tour-a-[0-9a-f]+" + TIME)
                .containsPattern("(?m)^  => snapshot tour-a-[0-9a-f]+ of tour-a verified, no problems" + TIME)
                .containsPattern("(?m)^  => resumed: identity tour-a, durable file: hello from the tour" + TIME)
                .containsPattern("(?m)^  => clone identity: tour-b \\(tour-a still answers tour-a\\); durable file: hello from the tour" + TIME)
                .containsPattern("(?m)^  => checkpointed: tour-a still RUNNING, answers pong, guest paused \\d+ ms" + TIME)
                .containsPattern("(?m)^  => forked: tour-f-1=tour-f-1 tour-f-2=tour-f-2" + TIME)
                .containsPattern("(?m)^  => e2b sandbox (sbx-[0-9a-f]+) answers \\1" + TIME)
                .containsPattern("(?m)^  => deleted: 4 sandboxes, 0 snapshots left" + TIME)
                .containsPattern("(?m)^  => nothing left running ")
                .containsPattern("(?m)^  => temp dir /tmp/ateom-try\\.\\w+ removed; tour done in ");
        assertThat(out).as("the secret before its rotation").contains("    token-v1");

        Matcher tmp = Pattern.compile("try: temp dir (/tmp/ateom-try\\.\\w+)").matcher(out);
        assertThat(tmp.find()).as("the tour names its temp dir").isTrue();
        assertThat(Path.of(tmp.group(1))).doesNotExist();
        assertThat(HostProcesses.mentioning(tmp.group(1))).as("processes left behind").isEmpty();
    }
}
