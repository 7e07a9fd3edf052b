package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.microvm.config.ConfigOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --virtiofsd-ahead-running-ms}: a sandbox that has run that long has its next resume's three virtiofsd
 * serving; its suspend keeps them and the resume right after claims them; they never push out a suspended sandbox's
 * set; a delete stops them. Against an in-process daemon with the stand-in's {@code none} backend and a budget of one
 * set, so that the two kinds compete.
 */
class StandbySharesTest {
    private static final long RUNNING_MS = 200;

    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of(ConfigOption.VIRTIOFSD_AHEAD, "1",
            ConfigOption.VIRTIOFSD_AHEAD_RUNNING_MS, String.valueOf(RUNNING_MS)));

    /** Each test starts with no sandbox and so with the budget's set free, whatever the one before left when it failed. */
    @AfterEach
    void cleanUp() throws Exception {
        daemon.deleteAllSandboxesBut();
    }

    @Test
    void aSandboxThatRanHasItsNextVirtiofsdServingWhichItsSuspendKeepsAndTheResumeRightAfterClaims() throws Exception {
        daemon.createOk(daemon.spec("sb-ran", "sb-ran"));
        Set<Long> standby = sharesIn(awaitServing("sb-ran", 2));
        JsonNode runtime = daemon.get("/v1/sandboxes/sb-ran").body().path("runtime");
        assertThat(standby).as("beside the running VM's own shares").doesNotContainAnyElementsOf(TestTools.sharePids(runtime));

        var suspended = daemon.post("/v1/sandboxes/sb-ran/suspend", "{}");
        assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
        daemon.awaitTeardowns();
        assertThat(sharesIn(TestTools.processesMentioning(epochDir("sb-ran", 2)))).as("the suspend kept them, starting none")
                .isEqualTo(standby);

        var resumed = daemon.post("/v1/sandboxes/sb-ran/resume", "{}");

        assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
        JsonNode resumedRuntime = resumed.body().path("sandbox").path("runtime");
        assertThat(resumedRuntime.path("epoch").asInt()).isEqualTo(2);
        assertThat(TestTools.sharePids(resumedRuntime)).as("the resume runs on them").hasSize(3).isSubsetOf(standby);
        // and once it has run again, the next epoch's: deleting the sandbox stops those too
        awaitServing("sb-ran", 3);
        assertThat(daemon.delete("/v1/sandboxes/sb-ran?deleteSnapshots=true").status()).isEqualTo(204);
        daemon.awaitPoolFull();
        assertThat(TestTools.leakedChildren()).isEmpty();
        assertThat(daemon.runDir().resolve("sb-ran")).doesNotExist();
    }

    @Test
    void aRunningSandboxsSetNeverPushesOutTheOneASuspendedSandboxWillResumeWith() throws Exception {
        daemon.createOk(daemon.spec("sb-asleep", "sb-asleep"));
        var suspended = daemon.post("/v1/sandboxes/sb-asleep/suspend", "{}");
        assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
        daemon.awaitTeardowns();
        // its standby's, kept, or its teardown's: the budget's one set (the virtiofsd, not their helpers, which come and go)
        Set<Long> asleep = sharesIn(awaitServing("sb-asleep", 2));
        assertThat(asleep).hasSize(3);

        daemon.createOk(daemon.spec("sb-awake", "sb-awake"));
        // five times the delay: a standby set that took the budget's place would be serving by then
        Thread.sleep(5 * RUNNING_MS);

        assertThat(TestTools.sockets(epochDir("sb-awake", 2))).as("no room: the running sandbox starts none").isEmpty();
        assertThat(asleep).as("the suspended sandbox's set still serves").allMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        var resumed = daemon.post("/v1/sandboxes/sb-asleep/resume", "{}");
        assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
        assertThat(TestTools.sharePids(resumed.body().path("sandbox").path("runtime"))).isSubsetOf(asleep);
        daemon.deleteAllSandboxesBut();
        daemon.awaitPoolFull();
        assertThat(TestTools.leakedChildren()).isEmpty();
    }

    /**
     * The virtiofsd themselves (this JVM's children) among {@code pids}: below each, the serving child and a helper that
     * lives for a moment during its set-up come and go, so only these say whether a set was kept or started anew.
     */
    private static Set<Long> sharesIn(Set<Long> pids) {
        long self = ProcessHandle.current().pid();
        return pids.stream().filter(pid -> ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid)
                .orElse(0L) == self).collect(Collectors.toSet());
    }

    private static Path epochDir(String id, int epoch) {
        return daemon.runDir().resolve(id).resolve("e" + epoch);
    }

    private static Set<Long> awaitServing(String id, int epoch) throws Exception {
        return TestTools.awaitThreeSharesServing(epochDir(id, epoch));
    }
}
