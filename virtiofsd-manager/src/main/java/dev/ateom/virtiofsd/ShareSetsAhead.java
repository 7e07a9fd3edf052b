package dev.ateom.virtiofsd;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Share sets started ahead of the VM that will use them (the next resume of a suspended sandbox), at most
 * {@code budget} sets at a time, so that a bring-up finds its virtiofsd already serving and only the VMM's vhost-user
 * handshake remains on its path. Each set is keyed (by sandbox) and handed out only to a claim with exactly the specs
 * it was started with, and only when every one of its processes still runs (a share that exited meanwhile is a crash:
 * the set is killed and the claimant starts its own). A set nobody claims is killed by {@link #discard} or
 * {@link #close}; when the budget is full, the oldest set makes room for a new one.
 */
public final class ShareSetsAhead implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ShareSetsAhead.class.getName());

    private record Ahead(List<ShareSpec> specs, CompletableFuture<ShareSet> starting) {}

    private final int budget;
    /** In the order they were started: the first is the oldest. */
    private final Map<String, Ahead> sets = new LinkedHashMap<>();
    private boolean closed;

    /** @param budget the most sets kept started at once; 0 starts none */
    public ShareSetsAhead(int budget) {
        if (budget < 0) throw new IllegalArgumentException("budget must be ≥ 0, not " + budget);
        this.budget = budget;
    }

    /**
     * Starts {@code specs} for {@code key} on a virtual thread; returns at once. An earlier set for the key and, when
     * the budget is full, the oldest set are killed first (before this returns). False when nothing was started (a
     * budget of 0, or closed).
     */
    public boolean startAhead(String key, VirtiofsdLauncher launcher, List<ShareSpec> specs) {
        List<Ahead> dropped = new ArrayList<>();
        CompletableFuture<ShareSet> starting = new CompletableFuture<>();
        synchronized (this) {
            if (closed || budget == 0) return false;
            Ahead earlier = sets.remove(key);
            if (earlier != null) dropped.add(earlier);
            while (sets.size() >= budget) {
                String oldest = sets.keySet().iterator().next();
                dropped.add(sets.remove(oldest));
            }
            sets.put(key, new Ahead(List.copyOf(specs), starting));
        }
        dropped.forEach(ShareSetsAhead::kill);
        Thread.ofVirtual().name("virtiofsd-ahead-" + key).start(() -> {
            try {
                starting.complete(ShareSet.start(launcher, specs));
            } catch (Throwable e) {
                starting.completeExceptionally(e);
            }
        });
        return true;
    }

    /**
     * The set started for {@code key} with exactly {@code specs}, once its start is done (waiting for it if need be),
     * if every share still runs; otherwise empty, and whatever was started for the key is killed. Either way the key
     * has no set afterwards: the claimant owns what it got.
     */
    public Optional<ShareSet> claim(String key, List<ShareSpec> specs) {
        Ahead ahead;
        synchronized (this) {
            ahead = sets.remove(key);
        }
        if (ahead == null) return Optional.empty();
        if (!ahead.specs().equals(specs)) {
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

    /** Kills the set of {@code key}, if any, once its start is done; its processes are gone when this returns. */
    public void discard(String key) {
        Ahead ahead;
        synchronized (this) {
            ahead = sets.remove(key);
        }
        if (ahead != null) kill(ahead);
    }

    /** Whether the start for {@code key} has ended (served or failed); false when there is none. */
    synchronized boolean startEnded(String key) {
        Ahead ahead = sets.get(key);
        return ahead != null && ahead.starting().isDone();
    }

    /** Whether {@link #startAhead} would start anything (a budget above 0, not closed). */
    public synchronized boolean enabled() { return budget > 0 && !closed; }

    /** How many sets are started or starting. */
    public synchronized int size() { return sets.size(); }

    /** Kills every set; no set starts after this. */
    @Override
    public void close() {
        List<Ahead> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(sets.values());
            sets.clear();
        }
        all.forEach(ShareSetsAhead::kill);
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
