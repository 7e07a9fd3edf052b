package dev.ateom.virtiofsd;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Share sets started ahead of the VM that will use them (the next resume of a suspended sandbox), at most
 * {@code budget} sets at a time, so that a bring-up finds its virtiofsd already serving and only the VMM's vhost-user
 * handshake remains on its path. Each set is keyed (by sandbox) and handed out only to a claim with exactly the specs
 * it was started with, and only when every one of its processes still runs (a share that exited meanwhile is a crash:
 * the set is killed and the claimant starts its own). A set nobody claims is killed by {@link #discard} or
 * {@link #close}; when the budget is full, the oldest set makes room for a new one ({@link #startAhead}), unless the new
 * one is only started where there is room ({@link #startIfRoom}: a running sandbox's, which may not be needed).
 *
 * <p>A set makes room only once it is {@code keptAtLeast} old; until then a new one is not started. Without that, a
 * burst of suspends (a drain, an idle sweep, 20 at once in the bench) started a set for each, every start pushing out
 * one started a moment before: all but the last {@code budget} started and killed for nothing, on the cores the
 * burst's own teardowns and the resumes after it need (20 resumes at once 1.18-1.23× the path before issue 27, and
 * 0.97× with no set started ahead). Which sandbox of a burst resumes first is not known, so its first {@code budget}
 * keep theirs; at most {@code budget} sets are pushed out per {@code keptAtLeast}.
 *
 * <p>A set that was dropped (made room, replaced, discarded) is killed by the thread that dropped it, which first
 * waits for its start to end. Until its processes are gone they still hold the key's socket paths and pid files, so a
 * claim for that key waits for the kill before it answers "nothing": a claimant that then starts its own shares on the
 * same paths must not find them taken (20 resumes at once, with a budget of 4, did before this wait).
 */
public final class ShareSetsAhead implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ShareSetsAhead.class.getName());

    private record Ahead(List<ShareSpec> specs, CompletableFuture<ShareSet> starting, long startedNanos) {}

    /** How old a set must be before it makes room for a new one: longer than a burst of suspends takes to answer. */
    public static final Duration KEPT_AT_LEAST = Duration.ofSeconds(2);

    private final int budget;
    private final long keptAtLeastNanos;
    private final LongSupplier clock;
    /** In the order they were started: the first is the oldest. */
    private final Map<String, Ahead> sets = new LinkedHashMap<>();
    /** Per key, the kills of its dropped sets still running: done once their processes are gone. */
    private final Map<String, CompletableFuture<Void>> stopping = new HashMap<>();
    private boolean closed;

    /** @param budget the most sets kept started at once; 0 starts none */
    public ShareSetsAhead(int budget) {
        this(budget, KEPT_AT_LEAST, System::nanoTime);
    }

    /**
     * @param keptAtLeast how old a set must be before it makes room for a new one
     * @param clock       {@link System#nanoTime}, or a test's
     */
    ShareSetsAhead(int budget, Duration keptAtLeast, LongSupplier clock) {
        if (budget < 0) throw new IllegalArgumentException("budget must be ≥ 0, not " + budget);
        this.budget = budget;
        this.keptAtLeastNanos = keptAtLeast.toNanos();
        this.clock = clock;
    }

    /**
     * Starts {@code specs} for {@code key} on a virtual thread; returns at once. An earlier set for the key and, when
     * the budget is full, the oldest set are killed first (before this returns). False when nothing was started (a
     * budget of 0, closed, or the budget full of sets too young to make room).
     */
    public boolean startAhead(String key, VirtiofsdLauncher launcher, List<ShareSpec> specs) {
        return startAhead(key, launcher, specs, set -> { });
    }

    /**
     * {@link #startAhead(String, VirtiofsdLauncher, List)}, with {@code then} run on the started set on the same thread
     * before it counts as started: where a caller confines it ({@link ShareSet#confine}), so that is off the claimant's
     * path too. When {@code then} throws, the set is killed and its start fails (the claimant starts its own).
     */
    public boolean startAhead(String key, VirtiofsdLauncher launcher, List<ShareSpec> specs, Consumer<ShareSet> then) {
        return start(key, launcher, specs, then, true);
    }

    /**
     * {@link #startAhead(String, VirtiofsdLauncher, List, Consumer)}, only where that takes no other set's place: the key
     * has no set (nor one being killed) and the budget has room. For a set started on speculation (a running sandbox's
     * next resume), which must not push out one a suspended sandbox is waiting to resume with. False when nothing was
     * started.
     */
    public boolean startIfRoom(String key, VirtiofsdLauncher launcher, List<ShareSpec> specs, Consumer<ShareSet> then) {
        return start(key, launcher, specs, then, false);
    }

    /** Whether {@link #startIfRoom} would start a set for {@code key} now. */
    public synchronized boolean hasRoomFor(String key) {
        return !closed && budget > 0 && !sets.containsKey(key) && !stopping.containsKey(key) && sets.size() < budget;
    }

    /**
     * Whether {@code key} has a set started or starting with exactly {@code specs} (and whose start did not fail): a
     * caller about to start those again keeps it, and leaves the paths it holds alone.
     */
    public synchronized boolean holds(String key, List<ShareSpec> specs) {
        Ahead ahead = sets.get(key);
        return ahead != null && !ahead.starting().isCompletedExceptionally() && Set.copyOf(ahead.specs()).equals(Set.copyOf(specs));
    }

    private boolean start(String key, VirtiofsdLauncher launcher, List<ShareSpec> specs, Consumer<ShareSet> then, boolean makeRoom) {
        List<Runnable> kills = new ArrayList<>();
        CompletableFuture<ShareSet> starting = new CompletableFuture<>();
        synchronized (this) {
            if (makeRoom ? closed || budget == 0 : !hasRoomFor(key)) return false;
            List<String> makingRoom = oldestMakingRoomFor(key);
            if (makingRoom == null) return false;
            if (sets.containsKey(key)) kills.add(drop(key));
            makingRoom.forEach(oldest -> kills.add(drop(oldest)));
            sets.put(key, new Ahead(List.copyOf(specs), starting, clock.getAsLong()));
        }
        kills.forEach(Runnable::run);
        Thread.ofVirtual().name("virtiofsd-ahead-" + key).start(() -> {
            try {
                ShareSet set = ShareSet.start(launcher, specs);
                try {
                    then.accept(set);
                } catch (Throwable e) {
                    set.kill();
                    throw e;
                }
                starting.complete(set);
            } catch (Throwable e) {
                starting.completeExceptionally(e);
            }
        });
        return true;
    }

    /**
     * The other keys whose sets would make room for one more of {@code key}'s (the oldest first; none while there is
     * room), or null when one of them is younger than {@code keptAtLeast}. The key's own set is replaced, never counted.
     */
    private List<String> oldestMakingRoomFor(String key) {
        List<String> oldest = new ArrayList<>();
        int kept = sets.size() - (sets.containsKey(key) ? 1 : 0);
        long now = clock.getAsLong();
        for (Map.Entry<String, Ahead> entry : sets.entrySet()) {
            if (kept < budget) break;
            if (entry.getKey().equals(key)) continue;
            if (now - entry.getValue().startedNanos() < keptAtLeastNanos) return null;
            oldest.add(entry.getKey());
            kept--;
        }
        return oldest;
    }

    /**
     * The set started for {@code key} with exactly {@code specs}, once its start is done (waiting for it if need be),
     * if every share still runs; otherwise empty, and whatever was started for the key is killed. Either way the key
     * has no set afterwards: the claimant owns what it got. {@link #take} then {@link Claim#await}, in one.
     */
    public Optional<ShareSet> claim(String key, List<ShareSpec> specs) {
        return take(key, specs).await();
    }

    /**
     * Takes what {@code key} has (a set started or starting, a dropped set's kill still running) without waiting for
     * it: the key has no set afterwards. The wait is {@link Claim#await}'s, so a bring-up can prepare everything else
     * meanwhile; until then the key's socket paths may be held ({@link Claim#holdsPaths}).
     */
    public Claim take(String key, List<ShareSpec> specs) {
        synchronized (this) {
            return new Claim(key, List.copyOf(specs), sets.remove(key), stopping.get(key));
        }
    }

    /** What {@link #take} took for a key: the set started ahead, if any, and a kill of a dropped one still running. */
    public static final class Claim {
        /** Nothing taken: for a bring-up that has no set started ahead (a create or clone). */
        public static final Claim NONE = new Claim(null, List.of(), null, null);
        private final String key;
        private final List<ShareSpec> specs;
        private final Ahead ahead;
        private final CompletableFuture<Void> dropped;

        /**
         * A set another owner made ahead and hands over (the shares made for a clone of a snapshot), for a claimant to
         * {@linkplain #requiring require} its specs of: given out by {@link #await} like a set started here, only with
         * exactly those specs and every share still running, otherwise killed.
         */
        public static Claim of(String key, ShareSet set) {
            List<ShareSpec> serving = set.processes().values().stream().map(VirtiofsdProcess::spec).toList();
            return new Claim(key, serving, new Ahead(serving, CompletableFuture.completedFuture(set), System.nanoTime()), null);
        }

        /** This claim for a claimant that needs exactly {@code wanted}. */
        public Claim requiring(List<ShareSpec> wanted) { return new Claim(key, List.copyOf(wanted), ahead, dropped); }

        private Claim(String key, List<ShareSpec> specs, Ahead ahead, CompletableFuture<Void> dropped) {
            this.key = key;
            this.specs = specs;
            this.ahead = ahead;
            this.dropped = dropped;
        }

        /**
         * Whether processes started ahead for the key may still hold its socket paths and pid files (a set starting or
         * serving, or a dropped set being killed): the claimant keeps the dir they are in until {@link #await} returned.
         */
        public boolean holdsPaths() { return ahead != null || dropped != null; }

        /**
         * Whether {@link #await} has nothing left to wait for and a set to look at: one was started ahead and its start
         * has ended (a dropped set's kill too). Then the claim is a few checks, which a caller does on its own thread.
         */
        public boolean ready() {
            return ahead != null && ahead.starting().isDone() && (dropped == null || dropped.isDone());
        }

        /**
         * The set, once its start is done, if it was started with exactly the claim's specs and every share still runs;
         * otherwise empty, with what was started for the key killed (and a dropped set's kill done) by then.
         */
        public Optional<ShareSet> await() {
            // a dropped set of this key still holds its socket paths until its kill is done
            if (dropped != null) dropped.join();
            if (ahead == null) return Optional.empty();
            if (!Set.copyOf(ahead.specs()).equals(Set.copyOf(specs))) {
                LOG.log(Level.INFO, "virtiofsd started ahead for " + key + " serve other specs than the claim's; stopping them");
                kill(ahead);
                return Optional.empty();
            }
            ShareSet set;
            try {
                set = ahead.starting().join();
            } catch (CompletionException e) {
                LOG.log(Level.WARNING, "virtiofsd started ahead for " + key + " failed to start: " + e.getCause().getMessage());
                return Optional.empty();
            }
            List<ShareKind> exited = set.processes().values().stream().filter(p -> !p.isAlive()).map(VirtiofsdProcess::kind).toList();
            if (!exited.isEmpty()) {
                LOG.log(Level.WARNING, "virtiofsd started ahead for " + key + " exited before their claim (" + exited + "); stopping the rest");
                kill(ahead);
                return Optional.empty();
            }
            return Optional.of(set);
        }
    }

    /** Kills the set of {@code key}, if any, once its start is done; its processes are gone when this returns. */
    public void discard(String key) {
        Runnable kill;
        CompletableFuture<Void> dropped;
        synchronized (this) {
            kill = sets.containsKey(key) ? drop(key) : null;
            dropped = stopping.get(key);
        }
        if (kill != null) kill.run();
        if (dropped != null) dropped.join();
    }

    /** Whether the start for {@code key} has ended (served or failed); false when there is none. */
    synchronized boolean startEnded(String key) {
        Ahead ahead = sets.get(key);
        return ahead != null && ahead.starting().isDone();
    }

    /** Whether a set of {@code key} is started or starting (not one being killed). */
    synchronized boolean holds(String key) { return sets.containsKey(key); }

    /** Whether {@link #startAhead} would start anything (a budget above 0, not closed). */
    public synchronized boolean enabled() { return budget > 0 && !closed; }

    /** How many sets are started or starting. */
    public synchronized int size() { return sets.size(); }

    /** Kills every set; no set starts after this. */
    @Override
    public void close() {
        List<Runnable> kills = new ArrayList<>();
        List<CompletableFuture<Void>> others;
        synchronized (this) {
            closed = true;
            while (!sets.isEmpty()) kills.add(drop(sets.keySet().iterator().next()));
            others = List.copyOf(stopping.values());
        }
        kills.forEach(Runnable::run);
        // kills other threads began (a set that made room) end before the close returns, too
        others.forEach(CompletableFuture::join);
    }

    /**
     * Removes the key's set (the caller holds the lock) and returns its kill, to run outside the lock: a claim for the
     * key waits for it until then.
     */
    private Runnable drop(String key) {
        Ahead ahead = sets.remove(key);
        CompletableFuture<Void> killed = new CompletableFuture<>();
        stopping.merge(key, killed, CompletableFuture::allOf);
        return () -> {
            try {
                kill(ahead);
            } finally {
                killed.complete(null);
                synchronized (this) {
                    stopping.computeIfPresent(key, (k, pending) -> pending.isDone() ? null : pending);
                }
            }
        };
    }

    private static void kill(Ahead ahead) {
        try {
            ahead.starting().join().kill();
        } catch (CompletionException e) {
            // the start failed: ShareSet.start stopped what it had started
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "stopping virtiofsd started ahead failed: " + e.getMessage());
        }
    }
}
