package dev.ateom.network;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.OptionalInt;

/**
 * The pool of built, unassigned slots, kept at its target size by one background thread, so an acquire never waits
 * for the kernel. The refiller waits while the pool is full or every address is taken, and backs off after failures.
 * {@link #close} stops it and removes the slots still waiting.
 */
final class ReadySlots {
    private static final System.Logger LOG = System.getLogger(ReadySlots.class.getName());
    private static final Duration REFILL_JOIN_LIMIT = Duration.ofSeconds(60);

    private final int target;
    private final SlotIndexes indexes;
    private final SlotBuilder builder;
    private final SlotTeardown teardown;
    private final Object lock = new Object();
    private final Deque<Slot> ready = new ArrayDeque<>();
    private Thread refiller;
    private boolean closed;

    ReadySlots(int target, SlotIndexes indexes, SlotBuilder builder, SlotTeardown teardown) {
        this.target = target;
        this.indexes = indexes;
        this.builder = builder;
        this.teardown = teardown;
    }

    void start() {
        refiller = Thread.ofPlatform().name("network-slot-refill").daemon().start(this::refill);
    }

    /** A ready slot, or null. The refiller is not woken here: it must not compete with the acquire ({@link #wake}). */
    Slot take() {
        synchronized (lock) {
            return ready.pollFirst();
        }
    }

    /** An acquire or release is done: the refiller may build a replacement. */
    void wake() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    private void refill() {
        int failures = 0;
        while (true) {
            synchronized (lock) {
                if (closed) {
                    return;
                }
                if (ready.size() >= target) {
                    waitQuietly(Duration.ofSeconds(1));
                    continue;
                }
            }
            OptionalInt index = indexes.take();
            if (index.isEmpty()) {
                synchronized (lock) {
                    waitQuietly(Duration.ofSeconds(1));
                }
                continue;
            }
            try {
                Slot slot = builder.build(index.getAsInt());
                failures = 0;
                synchronized (lock) {
                    if (!closed) {
                        ready.addLast(slot);
                        lock.notifyAll();
                        continue;
                    }
                }
                slot.markReleased();
                teardown.tearDown(slot);
            } catch (IOException | RuntimeException e) {
                if (e.getSuppressed().length == 0) {
                    indexes.release(index.getAsInt());
                }
                failures++;
                LOG.log(System.Logger.Level.WARNING, "network: building a ready slot failed ({0} in a row): {1}", failures, e.getMessage());
                synchronized (lock) {
                    waitQuietly(Duration.ofMillis(Math.min(30_000, 100L << Math.min(failures, 9))));
                }
            }
        }
    }

    private void waitQuietly(Duration duration) {
        try {
            lock.wait(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until the pool is full (for tests and benchmarks); false on timeout or once closed. */
    boolean awaitFull(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (ready.size() < target) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0 || closed) {
                    return false;
                }
                waitQuietly(Duration.ofMillis(Math.min(left, 100)));
            }
            return true;
        }
    }

    int size() {
        synchronized (lock) {
            return ready.size();
        }
    }

    /** Stops the refiller (waiting for a build in progress) and removes the slots still waiting. Idempotent. */
    void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            lock.notifyAll();
        }
        if (refiller != null) {
            try {
                if (!refiller.join(REFILL_JOIN_LIMIT)) {
                    LOG.log(System.Logger.Level.WARNING, "network: the refill thread did not stop within {0}", REFILL_JOIN_LIMIT);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        List<Slot> unused;
        synchronized (lock) {
            unused = new ArrayList<>(ready);
            ready.clear();
        }
        for (Slot slot : unused) {
            slot.markReleased();
            IOException failure = teardown.tearDown(slot);
            if (failure != null) {
                LOG.log(System.Logger.Level.WARNING, "network: ready slot {0} not removed: {1}", slot.name(), failure.getMessage());
            }
        }
    }
}
