package dev.ateom.network;

import java.time.Duration;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Which slot numbers are free. Numbers are handed out round-robin, so a released address comes back as late as
 * possible, and never before {@code reuseDelay} has passed: late packets of a finished sandbox's connections find
 * no new sandbox behind its address.
 */
final class SlotIndexes {
    private final int capacity;
    private final long reuseDelayNanos;
    private final BitSet inUse = new BitSet();
    private final Map<Integer, Long> resting = new HashMap<>();
    private int next;

    SlotIndexes(int capacity, Duration reuseDelay) {
        this.capacity = capacity;
        this.reuseDelayNanos = reuseDelay.toNanos();
    }

    synchronized OptionalInt take() {
        long now = System.nanoTime();
        for (int i = 0; i < capacity; i++) {
            int candidate = (next + i) % capacity;
            if (inUse.get(candidate)) {
                continue;
            }
            Long since = resting.get(candidate);
            if (since != null && now - since < reuseDelayNanos) {
                continue;
            }
            resting.remove(candidate);
            inUse.set(candidate);
            next = (candidate + 1) % capacity;
            return OptionalInt.of(candidate);
        }
        return OptionalInt.empty();
    }

    /** Marks a number taken without handing it out (a slot that survived a daemon restart). */
    synchronized void claim(int index) {
        inUse.set(index);
    }

    /** The number rests for the reuse delay, then it is free again. */
    synchronized void release(int index) {
        inUse.clear(index);
        resting.put(index, System.nanoTime());
    }

    synchronized int taken() {
        return inUse.cardinality();
    }

    int capacity() {
        return capacity;
    }
}
