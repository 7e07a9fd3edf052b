package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.timing.FailPoints;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
        FailPoints.disarmAll();
        daemon.deleteAllSandboxesBut();
    }

    /**
     * The start waits until no bring-up is under way: a sandbox that runs while another's create is held at a step has
     * no standby set however long it runs meanwhile, and has one once that create is done.
     */
    @Test
    void aStandbyStartWaitsUntilNoBringUpIsUnderWay() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        FailPoints.runOnce("create.vmBoot", () -> {
            held.countDown();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        CompletableFuture<Integer> slow = CompletableFuture.supplyAsync(() -> {
            try {
                return daemon.post("/v1/sandboxes", daemon.spec("sb-slow", "sb-slow")).status();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            assertThat(held.await(60, TimeUnit.SECONDS)).as("the other create held at vmBoot").isTrue();
            daemon.createOk(daemon.spec("sb-quiet", "sb-quiet"));
            // five times the delay: a standby set started regardless would be serving by then
            Thread.sleep(5 * RUNNING_MS);

            assertThat(TestTools.sockets(epochDir("sb-quiet", 2))).as("no standby set while a create is under way").isEmpty();
        } finally {
            release.countDown();
        }
        assertThat(slow.get(60, TimeUnit.SECONDS)).isEqualTo(201);
        assertThat(sharesIn(awaitServing("sb-quiet", 2))).as("started once the create was done").hasSize(3);
        daemon.deleteAllSandboxesBut();
        daemon.awaitPoolFull();
        assertThat(TestTools.leakedChildren()).isEmpty();
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
