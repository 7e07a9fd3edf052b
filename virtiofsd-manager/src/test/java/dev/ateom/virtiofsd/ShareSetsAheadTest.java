package dev.ateom.virtiofsd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Share sets started ahead of their claim, with the real virtiofsd: handed out once, matched, bounded, never leaked. */
class ShareSetsAheadTest {

    @RegisterExtension
    static final LauncherUnderTest fixture = new LauncherUnderTest("vfsd-ahead");

    /** The three shares of one sandbox, in a fresh dir. */
    private static List<ShareSpec> specs(String sandbox) throws IOException {
        Path dir = Files.createTempDirectory(fixture.base(), sandbox);
        Path run = Files.createDirectories(dir.resolve("run"));
        Map<ShareKind, Path> dirs = new EnumMap<>(ShareKind.class);
        for (ShareKind kind : ShareKind.values()) dirs.put(kind, Files.createDirectories(dir.resolve(kind.shortName())));
        return ShareSet.specs(sandbox, dirs, run, ShareOptions.DEFAULT);
    }

    @Test
    void aClaimWithTheSameSpecsGetsTheSetServingOnceAndASecondClaimGetsNothing() throws Exception {
        try (ShareSetsAhead ahead = new ShareSetsAhead(2)) {
            List<ShareSpec> specs = specs("sb-a");
            assertThat(ahead.startAhead("sb-a", fixture.launcher(), specs)).isTrue();

            Optional<ShareSet> claimed = ahead.claim("sb-a", specs);

            assertThat(claimed).isPresent();
            for (VirtiofsdProcess process : claimed.get().processes().values()) {
                assertThat(process.isAlive()).isTrue();
                try (VhostUserFrontend frontend = VhostUserFrontend.connect(process.socketPath())) {
                    assertThat(frontend.getFeatures() & VhostUserFrontend.PROTOCOL_FEATURES_BIT).as(process.toString()).isNotZero();
                }
            }
            assertThat(ahead.claim("sb-a", specs)).as("handed out once").isEmpty();
            assertThat(ahead.size()).isZero();
            claimed.get().kill();
        }
    }

    @Test
    void aClaimWithOtherSpecsGetsNothingAndTheSetIsKilled() throws Exception {
        try (ShareSetsAhead ahead = new ShareSetsAhead(2)) {
            List<ShareSpec> specs = specs("sb-b");
            ahead.startAhead("sb-b", fixture.launcher(), specs);

            assertThat(ahead.claim("sb-b", specs("sb-b"))).isEmpty();

            assertThat(ProcessLeaks.mentioning(specs.getFirst().socketPath().getParent())).isEmpty();
        }
    }

    @Test
    void aSetWithAShareThatExitedIsNotHandedOutAndTheRestIsKilled() throws Exception {
        try (ShareSetsAhead ahead = new ShareSetsAhead(2)) {
            List<ShareSpec> specs = specs("sb-c");
            ahead.startAhead("sb-c", fixture.launcher(), specs);
            awaitStartEnded(ahead, "sb-c");
            // started and serving, then one share dies before the claim: a crash the claimant must not inherit
            Path durableSocket = specs.stream().filter(s -> s.kind() == ShareKind.DURABLE).findFirst().orElseThrow().socketPath();
            List<LinuxProcess> durable = LinuxProcess.all().stream().filter(p -> p.isVirtiofsdServing(durableSocket)).toList();
            assertThat(durable).isNotEmpty();
            durable.forEach(p -> ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroyForcibly));
            awaitGone(durable);

            assertThat(ahead.claim("sb-c", specs)).isEmpty();

            assertThat(ProcessLeaks.mentioning(specs.getFirst().socketPath().getParent())).isEmpty();
        }
    }

    @Test
    void theBudgetBoundsTheSetsTheOldestMakingRoomAndCloseKillsTheRest() throws Exception {
        List<ShareSpec> first = specs("sb-d1");
        List<ShareSpec> second = specs("sb-d2");
        List<ShareSpec> third = specs("sb-d3");
        ShareSetsAhead ahead = new ShareSetsAhead(2, Duration.ZERO, System::nanoTime);
        ahead.startAhead("sb-d1", fixture.launcher(), first);
        ahead.startAhead("sb-d2", fixture.launcher(), second);
        ahead.startAhead("sb-d3", fixture.launcher(), third);

        assertThat(ahead.size()).isEqualTo(2);
        assertThat(ProcessLeaks.mentioning(first.getFirst().socketPath().getParent())).as("the oldest made room").isEmpty();
        ahead.close();

        assertThat(ahead.startAhead("sb-d4", fixture.launcher(), specs("sb-d4"))).as("closed").isFalse();
        for (List<ShareSpec> specs : List.of(second, third)) {
            assertThat(ProcessLeaks.mentioning(specs.getFirst().socketPath().getParent())).isEmpty();
        }
    }

    /**
     * A set younger than {@code keptAtLeast} makes no room: a burst of starts keeps the first ones instead of starting
     * and killing all but the last. The key's own set is replaced whatever its age, and an old enough set makes room.
     */
    @Test
    void aSetMakesRoomOnlyOnceItIsKeptAtLeastItsTime() throws Exception {
        AtomicLong nanos = new AtomicLong();
        try (ShareSetsAhead ahead = new ShareSetsAhead(1, Duration.ofSeconds(2), nanos::get)) {
            List<ShareSpec> first = specs("sb-y1");
            assertThat(ahead.startAhead("sb-y1", fixture.launcher(), first)).isTrue();
            nanos.addAndGet(Duration.ofMillis(1999).toNanos());

            assertThat(ahead.startAhead("sb-y2", fixture.launcher(), specs("sb-y2"))).as("pushing out a set 1.999 s old").isFalse();

            List<ShareSpec> again = specs("sb-y1");
            assertThat(ahead.startAhead("sb-y1", fixture.launcher(), again)).as("the key's own set, replaced").isTrue();
            assertThat(ahead.holds("sb-y1", again)).isTrue();
            assertThat(ProcessLeaks.mentioning(first.getFirst().socketPath().getParent())).as("the replaced set is gone").isEmpty();
            nanos.addAndGet(Duration.ofSeconds(2).toNanos());
            List<ShareSpec> later = specs("sb-y3");
            assertThat(ahead.startAhead("sb-y3", fixture.launcher(), later)).as("once the set is 2 s old").isTrue();
            assertThat(ahead.size()).isEqualTo(1);
            assertThat(ahead.holds("sb-y3", later)).isTrue();
            assertThat(ProcessLeaks.mentioning(again.getFirst().socketPath().getParent())).as("the set that made room is gone").isEmpty();
        }
    }

    /**
     * Where a caller confines a set ahead ({@code then}) ends with the set, once, whoever ends it: the budget making
     * room, the close, or the claimant's kill; a {@code then} that fails kills the set, and its claim gets nothing.
     */
    @Test
    void aConfinementMadeAheadEndsOnceWithItsSetWhoeverEndsItAndAFailedOneKillsTheSet() throws Exception {
        Map<String, AtomicInteger> ended = new ConcurrentHashMap<>();
        ShareSetsAhead ahead = new ShareSetsAhead(2, Duration.ZERO, System::nanoTime);
        List<ShareSpec> claimed = specs("sb-c1");
        List<ShareSpec> dropped = specs("sb-c2");
        List<ShareSpec> closed = specs("sb-c3");
        List<ShareSpec> failing = specs("sb-c4");
        for (List<ShareSpec> specs : List.of(claimed, dropped)) {
            String key = specs.getFirst().sandboxId();
            ahead.startAhead(key, fixture.launcher(), specs, set -> set.confine(counting(key, ended)));
        }
        ShareSet set = ahead.claim("sb-c1", claimed).orElseThrow();
        assertThat(set.confinement()).as("confined before it was handed out").isPresent();
        set.kill();
        set.kill();
        assertThat(ended.get("sb-c1")).as("ended by the claimant's kill, once").hasValue(1);
        assertThat(set.confinement()).isEmpty();

        ahead.startAhead("sb-c3", fixture.launcher(), closed, s -> s.confine(counting("sb-c3", ended)));
        ahead.startAhead("sb-c4", fixture.launcher(), failing, s -> {
            throw new IllegalStateException("no cgroup today");
        });
        // sb-c4 made room: sb-c2, the oldest, was dropped and killed before startAhead returned
        assertThat(ended.get("sb-c2")).as("ended when its set made room").hasValue(1);
        assertThat(ahead.claim("sb-c4", failing)).as("a set whose confinement failed").isEmpty();
        assertThat(ProcessLeaks.mentioning(failing.getFirst().socketPath().getParent())).as("killed").isEmpty();
        ahead.close();
        assertThat(ended.get("sb-c3")).as("ended by the close").hasValue(1);
        assertThat(ProcessLeaks.mentioning(closed.getFirst().socketPath().getParent())).isEmpty();
    }

    private static ShareConfinement counting(String name, Map<String, AtomicInteger> ended) {
        ended.put(name, new AtomicInteger());
        return new ShareConfinement() {
            @Override
            public String name() { return name; }

            @Override
            public List<Path> paths() { return List.of(); }

            @Override
            public void end() { ended.get(name).incrementAndGet(); }
        };
    }

    @Test
    void aClaimForASetThatIsMakingRoomAnswersOnlyOnceItsProcessesAreGone() throws Exception {
        try (ShareSetsAhead ahead = new ShareSetsAhead(1, Duration.ZERO, System::nanoTime)) {
            List<ShareSpec> evicted = specs("sb-g1");
            ahead.startAhead("sb-g1", fixture.launcher(), evicted);
            // the second set makes room: its caller kills the first once the first's start is done (tens of ms)
            Thread maker = Thread.ofVirtual().start(() -> ahead.startAhead("sb-g2", fixture.launcher(), uncheckedSpecs("sb-g2")));
            awaitDropped(ahead, "sb-g1");

            // its resume finds no set, and starts its own virtiofsd on the same paths: none of the old may hold them
            assertThat(ahead.claim("sb-g1", evicted)).isEmpty();

            assertThat(ProcessLeaks.mentioning(evicted.getFirst().socketPath().getParent())).as("the evicted set is gone").isEmpty();
            maker.join();
        }
    }

    @Test
    void aTakeReturnsWhileTheStartRunsAndItsAwaitGivesTheSetOnceItListens() throws Exception {
        try (ShareSetsAhead ahead = new ShareSetsAhead(2)) {
            List<ShareSpec> specs = specs("sb-t");
            ahead.startAhead("sb-t", fixture.launcher(), specs);

            ShareSetsAhead.Claim claim = ahead.take("sb-t", specs);

            assertThat(ahead.startEnded("sb-t")).as("the key has no set once taken").isFalse();
            assertThat(ahead.holds("sb-t")).isFalse();
            assertThat(claim.holdsPaths()).as("its processes hold the key's paths until the claim is awaited").isTrue();
            assertThat(ahead.take("sb-t", specs).holdsPaths()).as("taken once").isFalse();
            Optional<ShareSet> claimed = claim.await();
            assertThat(claimed).isPresent();
            assertThat(claimed.get().processes().values()).allMatch(VirtiofsdProcess::isAlive);
            assertThat(claim.ready()).as("its start has ended: a claimant may take it on its own thread").isTrue();
            assertThat(ShareSetsAhead.Claim.of("sb-t", claimed.get()).ready()).as("a set handed over serves already").isTrue();
            claimed.get().kill();
            assertThat(ShareSetsAhead.Claim.NONE.holdsPaths()).isFalse();
            assertThat(ShareSetsAhead.Claim.NONE.await()).isEmpty();
            assertThat(ShareSetsAhead.Claim.NONE.ready()).as("no set to take: a claimant starts its own, beside").isFalse();
            assertThat(ahead.take("sb-none", specs).ready()).isFalse();
        }
    }

    @Test
    void aStartIfRoomTakesNoSetsPlaceAndASetWithTheSameSpecsIsKnownAsHeld() throws Exception {
        try (ShareSetsAhead ahead = new ShareSetsAhead(1)) {
            List<ShareSpec> suspended = specs("sb-r1");
            ahead.startAhead("sb-r1", fixture.launcher(), suspended);
            assertThat(ahead.holds("sb-r1", suspended)).isTrue();
            assertThat(ahead.holds("sb-r1", specs("sb-r9"))).as("other specs").isFalse();
            assertThat(ahead.holds("sb-r2", specs("sb-r2"))).isFalse();

            List<ShareSpec> running = specs("sb-r2");
            assertThat(ahead.hasRoomFor("sb-r2")).as("the budget is full").isFalse();
            assertThat(ahead.startIfRoom("sb-r2", fixture.launcher(), running, set -> { })).isFalse();
            assertThat(ahead.holds("sb-r1", suspended)).as("the set that was there stays").isTrue();
            assertThat(ahead.startIfRoom("sb-r1", fixture.launcher(), suspended, set -> { })).as("nor replaces its own key's").isFalse();

            Optional<ShareSet> claimed = ahead.claim("sb-r1", suspended);
            assertThat(claimed).isPresent();
            claimed.get().kill();
            assertThat(ahead.hasRoomFor("sb-r2")).isTrue();
            assertThat(ahead.startIfRoom("sb-r2", fixture.launcher(), running, set -> { })).isTrue();
            assertThat(ahead.claim("sb-r2", running)).as("started like any other").hasValueSatisfying(ShareSet::kill);
        }
    }

    @Test
    void aBudgetOfZeroStartsNothingAndDiscardKills() throws Exception {
        try (ShareSetsAhead none = new ShareSetsAhead(0); ShareSetsAhead one = new ShareSetsAhead(1)) {
            assertThat(none.enabled()).isFalse();
            assertThat(one.enabled()).isTrue();
            assertThat(none.startAhead("sb-e", fixture.launcher(), specs("sb-e"))).isFalse();
            List<ShareSpec> specs = specs("sb-f");
            one.startAhead("sb-f", fixture.launcher(), specs);

            one.discard("sb-f");

            assertThat(one.size()).isZero();
            assertThat(ProcessLeaks.mentioning(specs.getFirst().socketPath().getParent())).isEmpty();
        }
    }

    private static List<ShareSpec> uncheckedSpecs(String sandbox) {
        try {
            return specs(sandbox);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Until the key's set has left the map (it is being killed, or gone). */
    private static void awaitDropped(ShareSetsAhead ahead, String key) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (ahead.holds(key)) {
            assertThat(System.nanoTime()).as("dropped within 60 s").isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    /** Bounded: a start of three virtiofsd takes well under a second even on a loaded host. */
    private static void awaitStartEnded(ShareSetsAhead ahead, String key) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!ahead.startEnded(key)) {
            assertThat(System.nanoTime()).as("the start ends within 60 s").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private static void awaitGone(List<LinuxProcess> processes) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (processes.stream().anyMatch(p -> LinuxProcess.read(p.pid()).filter(q -> !q.isZombie()).isPresent())) {
            assertThat(System.nanoTime()).as("killed within 30 s").isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
