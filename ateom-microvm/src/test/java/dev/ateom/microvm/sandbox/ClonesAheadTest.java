package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.fixtures.wait.Eventually;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.timing.FailPoints;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --clone-ahead}: after a clone of a snapshot, the next one's durable dir and three virtiofsd are made ahead, and
 * the next clone of that snapshot takes them (moved into its own dirs, serving on through the renamed sockets: the
 * stand-in's restore connects to them over vhost-user) instead of making its own; a clone that fails after taking them
 * leaves nothing, a share that died meanwhile is not taken, and deleting the snapshot removes what was made for it.
 * Against an in-process daemon with the stand-in's {@code none} backend and real virtiofsd.
 */
class ClonesAheadTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of(ConfigOption.CLONE_AHEAD, "2"));

    /** Each test starts with no sandbox and nothing made ahead, whatever the one before left when it failed. */
    @AfterEach
    void cleanUp() throws Exception {
        FailPoints.disarmAll();
        daemon.deleteAllSandboxesBut();
    }

    @Test
    void theNextCloneTakesWhatWasMadeAheadAndHasItsOwnIdentity() throws Exception {
        String snapshot = snapshotOf("ca-src", "from the snapshot");
        JsonNode first = cloneOk(snapshot, "ca-k1");
        assertThat(first.path("timingsMs").has("durable")).as("nothing was made ahead for the first clone").isTrue();
        Set<Long> made = awaitMadeAhead();

        JsonNode second = cloneOk(snapshot, "ca-k2");

        assertThat(second.path("timingsMs").has("durable")).as("%s", second.path("timingsMs")).isFalse();
        JsonNode runtime = second.path("sandbox").path("runtime");
        assertThat(TestTools.sharePids(runtime)).as("the clone's shares are those made ahead").hasSize(3).isSubsetOf(made);
        runtime.path("shares").forEach(share -> assertThat(Path.of(share.path("socket").asText()))
                .as("a socket in the clone's own run dir").startsWith(daemon.runDir().resolve("ca-k2")).exists());
        Path sandboxDir = daemon.stateDir().resolve("sandboxes/ca-k2");
        assertThat(sandboxDir.resolve("durable/data/notes.txt")).hasContent("from the snapshot");
        assertThat(sandboxDir.resolve("system-info/identity/name")).as("regenerated for the clone").hasContent("ca-k2");
        // the clone after that one is made again, from the snapshot: nothing of the clone that took the last one
        Files.writeString(sandboxDir.resolve("durable/data/mine.txt"), "k2");
        awaitMadeAhead();
        Path next = entries(daemon.stateDir().resolve("clones-ahead")).iterator().next();
        assertThat(next.resolve("durable/data/notes.txt")).hasContent("from the snapshot");
        assertThat(next.resolve("durable/data/mine.txt")).doesNotExist();
        assertThat(next.resolve("system-info")).isEmptyDirectory();

        deleteAndAssertNothingMadeAhead("after the snapshot was deleted", "ca-src", "ca-k1", "ca-k2");
    }

    @Test
    void aCloneThatFailsAfterTakingWhatWasMadeAheadLeavesNothing() throws Exception {
        String snapshot = snapshotOf("cf-src", "x");
        cloneOk(snapshot, "cf-k1");
        awaitMadeAhead();
        FailPoints.failOnce("clone.vmRestore");

        var failed = daemon.post("/v1/sandboxes", DaemonApi.cloneRequest(snapshot, "cf-k2"));

        assertThat(failed.status()).as(failed.body().toString()).isEqualTo(500);
        assertThat(daemon.get("/v1/sandboxes/cf-k2").body().path("state").asText()).isEqualTo("FAILED");
        assertThat(daemon.delete("/v1/sandboxes/cf-k2").status()).isEqualTo(204);
        assertThat(daemon.runDir().resolve("cf-k2")).doesNotExist();
        assertNothingMadeAhead("after the failed clone that took it");
        JsonNode k1 = daemon.get("/v1/sandboxes/cf-k1").body().path("runtime");
        daemon.assertOnlyProcessesOf(k1);
        assertThat(daemon.post("/v1/sandboxes", DaemonApi.cloneRequest(snapshot, "cf-k3")).status()).as("a retry").isEqualTo(201);

        deleteAndAssertNothingMadeAhead("at the end", "cf-src", "cf-k1", "cf-k3");
    }

    /** Every step of a clone on shares made ahead, as a successful one times them: each is a fail point below. */
    static final List<String> STEPS = List.of("dirs", "takeAhead", "systemInfo", "virtiofsd", "chvStart", "rewrite", "runtimeSave",
            "vmRestore", "vmResume", "sync");

    @Test
    void theFailPointsCoverEveryTimedStepOfACloneOnSharesMadeAhead() throws Exception {
        String snapshot = snapshotOf("cs-src", "x");
        cloneOk(snapshot, "cs-k1");
        awaitMadeAhead();
        JsonNode timings = cloneOk(snapshot, "cs-k2").path("timingsMs");
        List<String> steps = new ArrayList<>();
        timings.fieldNames().forEachRemaining(steps::add);
        steps.remove("total");
        steps.removeAll(FailurePathsTest.SPANS);
        assertThat(steps).containsExactlyElementsOf(STEPS);
    }

    /**
     * A clone failing at any step leaves nothing of it (no process, no run dir, its sandbox dir only its record), whether
     * it had taken what was made ahead (then killed with the rest) or not yet (then left for the next clone), and a
     * retry succeeds.
     */
    @ParameterizedTest(name = "clone.{0}")
    @MethodSource("steps")
    void aCloneFailingAtAnyStepLeavesNothingOfItAndARetrySucceeds(String step) throws Exception {
        String id = "cs-" + step.toLowerCase(Locale.ROOT);
        String snapshot = snapshotOf(id + "-src", "x");
        JsonNode first = cloneOk(snapshot, id + "-k1").path("sandbox").path("runtime");
        Set<Long> made = awaitMadeAhead();
        boolean before = STEPS.indexOf(step) < STEPS.indexOf("takeAhead") + 1; // a fail point fires where its step begins
        FailPoints.failOnce("clone." + step);

        var failed = daemon.post("/v1/sandboxes", DaemonApi.cloneRequest(snapshot, id));

        assertThat(failed.status()).as(failed.body().toString()).isEqualTo(500);
        JsonNode sandbox = daemon.get("/v1/sandboxes/" + id).body();
        assertThat(sandbox.path("state").asText()).isEqualTo("FAILED");
        assertThat(sandbox.has("runtime")).isFalse();
        assertThat(daemon.runDir().resolve(id)).doesNotExist();
        try (var files = Files.list(daemon.stateDir().resolve("sandboxes").resolve(id))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("sandbox.json");
        }
        Set<Long> owned = TestTools.processesOf(first);
        if (before) owned.addAll(made);
        daemon.awaitPoolFull();
        assertThat(TestTools.leakedChildrenBesides(owned)).as("processes after a clone failed at %s", step).isEmpty();
        assertThat(daemon.delete("/v1/sandboxes/" + id).status()).isEqualTo(204);
        JsonNode retry = cloneOk(snapshot, id + "-k2");
        if (before) assertThat(TestTools.sharePids(retry.path("sandbox").path("runtime"))).as("what was made ahead, left for it").isSubsetOf(made);
    }

    static Stream<String> steps() { return STEPS.stream(); }

    /** With a budget of two, a third snapshot's clone makes room: the least recently cloned snapshot's is removed. */
    @Test
    void theLeastRecentlyClonedSnapshotMakesRoom() throws Exception {
        String[] snapshots = {snapshotOf("cr-a", "a"), snapshotOf("cr-b", "b"), snapshotOf("cr-c", "c")};
        for (int i = 0; i < 2; i++) {
            cloneOk(snapshots[i], "cr-k" + i);
            awaitMadeAheadCount(i + 1);
        }

        cloneOk(snapshots[2], "cr-k2");

        // the first snapshot's is killed and removed by the thread that then makes the third's
        Eventually.until(Duration.ofSeconds(60), () -> madeAheadNotes().equals(Set.of("b", "c")),
                "what is made ahead: for the two snapshots cloned last", () -> "made for: " + madeAheadNotes());
        assertThat(daemon.metric("ateom_clones_made_ahead")).isEqualTo(2.0);
        Eventually.until(Duration.ofSeconds(10), () -> entries(daemon.runDir().resolve(".clones-ahead")).size() == 2,
                "the run dir made for the first snapshot to go", () -> "left: " + entries(daemon.runDir().resolve(".clones-ahead")));
    }

    /**
     * A fork of a running sandbox clones a checkpoint of its own, which the next fork does not clone again (it takes
     * another): its clones make nothing ahead, so two forks leave a template's clone made ahead in a budget of two.
     * A fork of a suspended sandbox clones its latest snapshot, which the next fork clones again: that one is made.
     */
    @Test
    void aForkOfARunningSandboxMakesNothingAheadAndLeavesATemplatesClone() throws Exception {
        String template = snapshotOf("cfk-tpl", "template");
        cloneOk(template, "cfk-k1");
        Set<Long> made = awaitMadeAhead();
        daemon.createOk(daemon.spec("cfk-src", "cfk-src"));
        Files.writeString(daemon.stateDir().resolve("sandboxes/cfk-src/durable/data/notes.txt"), "forked");
        List<String> forks = new ArrayList<>(forkOk("cfk-src", "cfk-r1"));
        forks.addAll(forkOk("cfk-src", "cfk-r2"));

        JsonNode next = cloneOk(template, "cfk-k2");

        assertThat(TestTools.sharePids(next.path("sandbox").path("runtime"))).as("the template's next clone takes what was made for it")
                .hasSize(3).isSubsetOf(made);
        assertThat(daemon.post("/v1/sandboxes/cfk-src/suspend", "{}").status()).isEqualTo(200);
        forks.addAll(forkOk("cfk-src", "cfk-s"));
        Eventually.until(Duration.ofSeconds(60), () -> madeAheadNotes().contains("forked"),
                "a clone made ahead for the suspended source's snapshot", () -> "made for: " + madeAheadNotes());

        for (String id : List.of("cfk-k1", "cfk-k2")) assertThat(daemon.delete("/v1/sandboxes/" + id).status()).isEqualTo(204);
        assertThat(daemon.delete("/v1/sandboxes/cfk-tpl?deleteSnapshots=true").status()).isEqualTo(204);
        deleteAndAssertNothingMadeAhead("at the end", "cfk-src", forks.toArray(String[]::new));
    }

    /** One clone forked from {@code source}: its id. */
    private static List<String> forkOk(String source, String namePrefix) throws Exception {
        var forked = daemon.post("/v1/sandboxes/" + source + "/fork", "{\"count\": 1, \"namePrefix\": \"" + namePrefix + "\"}");
        assertThat(forked.status()).as(forked.body().toString()).isEqualTo(200);
        assertThat(forked.body().path("succeeded").asInt()).as(forked.body().toString()).isEqualTo(1);
        return List.of(forked.body().path("clones").get(0).path("id").asText());
    }

    /** The durable notes of each clone made ahead whose three virtiofsd listen (what its snapshot's sandbox wrote). */
    private static Set<String> madeAheadNotes() throws Exception {
        Set<String> notes = new HashSet<>();
        for (Path made : entries(daemon.stateDir().resolve("clones-ahead"))) {
            if (TestTools.sockets(daemon.runDir().resolve(".clones-ahead").resolve(made.getFileName())).size() != 3) continue;
            try {
                notes.add(Files.readString(made.resolve("durable/data/notes.txt")));
            } catch (NoSuchFileException e) {
                notes.add("(being removed)");
            }
        }
        return notes;
    }

    /** Failed where it begins, the step that takes what was made ahead leaves it for the next clone. */
    @Test
    void aCloneFailingBeforeItTakesWhatWasMadeAheadLeavesItForTheNext() throws Exception {
        String snapshot = snapshotOf("ct-src", "x");
        cloneOk(snapshot, "ct-k1");
        Set<Long> made = awaitMadeAhead();
        FailPoints.failOnce("clone.takeAhead");

        var failed = daemon.post("/v1/sandboxes", DaemonApi.cloneRequest(snapshot, "ct-k2"));

        assertThat(failed.status()).as(failed.body().toString()).isEqualTo(500);
        assertThat(daemon.delete("/v1/sandboxes/ct-k2").status()).isEqualTo(204);
        assertThat(daemon.runDir().resolve("ct-k2")).doesNotExist();
        JsonNode next = cloneOk(snapshot, "ct-k3");
        assertThat(TestTools.sharePids(next.path("sandbox").path("runtime"))).as("the next clone takes it").hasSize(3).isSubsetOf(made);

        deleteAndAssertNothingMadeAhead("at the end", "ct-src", "ct-k1", "ct-k3");
    }

    @Test
    void aShareMadeAheadThatDiedIsNotTaken() throws Exception {
        String snapshot = snapshotOf("cd-src", "x");
        cloneOk(snapshot, "cd-k1");
        Set<Long> made = awaitMadeAhead();
        // dead, not dying: until it is reaped it still counts as alive, and a clone would take it and fail at moving it
        // into its jail's cgroup (ESRCH), a race of its own that this test is not about
        ProcessHandle share = ProcessHandle.of(made.iterator().next()).orElseThrow();
        share.destroyForcibly();
        share.onExit().get(10, TimeUnit.SECONDS);

        JsonNode second = cloneOk(snapshot, "cd-k2");

        JsonNode runtime = second.path("sandbox").path("runtime");
        assertThat(TestTools.sharePids(runtime)).hasSize(3).doesNotContainAnyElementsOf(made);
        assertThat(daemon.stateDir().resolve("sandboxes/cd-k2/durable/data/notes.txt")).hasContent("x");
        deleteAndAssertNothingMadeAhead("at the end", "cd-src", "cd-k1", "cd-k2");
    }

    /** A sandbox with a durable file, suspended: its snapshot's id. */
    private static String snapshotOf(String id, String notes) throws Exception {
        daemon.createOk(daemon.spec(id, id));
        Files.writeString(daemon.stateDir().resolve("sandboxes/" + id + "/durable/data/notes.txt"), notes);
        var suspended = daemon.post("/v1/sandboxes/" + id + "/suspend", "{}");
        assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
        return suspended.body().path("snapshotId").asText();
    }

    private static JsonNode cloneOk(String snapshot, String id) throws Exception {
        return daemon.createOk(DaemonApi.cloneRequest(snapshot, id)).body();
    }

    /**
     * The virtiofsd serving what is made ahead (not yet taken: its dirs still under {@code <state>/clones-ahead}), once
     * three sockets listen in its run dir; bounded. A clone that took one keeps its first socket names until its
     * processes are gone, so the run dirs alone do not tell.
     */
    private static Set<Long> awaitMadeAhead() throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            for (Path made : entries(daemon.stateDir().resolve("clones-ahead"))) {
                Path run = daemon.runDir().resolve(".clones-ahead").resolve(made.getFileName());
                if (TestTools.sockets(run).size() == 3) return TestTools.processesMentioning(run);
            }
            assertThat(System.nanoTime()).as("a clone made ahead, its three virtiofsd listening, within 60 s").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    /** Until {@code count} clones are made ahead, each with its three virtiofsd listening; bounded. */
    private static void awaitMadeAheadCount(int count) {
        Eventually.until(Duration.ofSeconds(60), () -> {
            int ready = 0;
            for (Path made : entries(daemon.stateDir().resolve("clones-ahead"))) {
                if (TestTools.sockets(daemon.runDir().resolve(".clones-ahead").resolve(made.getFileName())).size() == 3) ready++;
            }
            return ready == count;
        }, count + " clones made ahead");
    }

    /** Deletes the clones, then their source with its snapshots; then nothing made ahead is left. */
    private static void deleteAndAssertNothingMadeAhead(String when, String source, String... clones) throws Exception {
        for (String id : clones) assertThat(daemon.delete("/v1/sandboxes/" + id).status()).isEqualTo(204);
        assertThat(daemon.delete("/v1/sandboxes/" + source + "?deleteSnapshots=true").status()).isEqualTo(204);
        assertNothingMadeAhead(when);
    }

    /** Once no sandbox runs on shares that were made ahead: no dir, socket or process of any is left. */
    private static void assertNothingMadeAhead(String when) throws Exception {
        Path runs = daemon.runDir().resolve(".clones-ahead");
        assertThat(entries(daemon.stateDir().resolve("clones-ahead"))).as("dirs made ahead %s", when).isEmpty();
        assertThat(TestTools.processesMentioning(runs)).as("virtiofsd made ahead %s", when).isEmpty();
        Eventually.until(Duration.ofSeconds(10), () -> entries(runs).isEmpty(), "the run dirs made ahead to go " + when,
                () -> "left: " + entries(runs));
    }

    private static Set<Path> entries(Path dir) throws Exception {
        if (!Files.isDirectory(dir)) return Set.of();
        try (var files = Files.list(dir)) {
            return files.collect(Collectors.toSet());
        }
    }
}
