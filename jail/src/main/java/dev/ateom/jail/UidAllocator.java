package dev.ateom.jail;

import java.util.BitSet;
import java.util.OptionalInt;

/**
 * Hands out the uids of a {@link UidRange}, one per live VMM: never two live VMMs with one uid. The next search
 * starts after the last uid given, so a freed uid is reused as late as possible (files a dead VMM left are
 * cleaned by then).
 */
public final class UidAllocator {
    private final UidRange range;
    private final BitSet taken = new BitSet();
    private int next;

    public UidAllocator(UidRange range) {
        this.range = range;
    }

    public UidRange range() {
        return range;
    }

    /** A free uid, now taken; empty when every uid of the range is live. */
    public synchronized OptionalInt allocate() {
        int size = range.size();
        int index = taken.nextClearBit(next);
        if (index >= size) index = taken.nextClearBit(0);
        if (index >= size) return OptionalInt.empty();
        taken.set(index);
        next = index + 1 >= size ? 0 : index + 1;
        return OptionalInt.of(range.first() + index);
    }

    /** Marks {@code uid} taken (a survivor adopted after a restart); false when it already was or is outside the range. */
    public synchronized boolean adopt(int uid) {
        if (!range.contains(uid) || taken.get(uid - range.first())) return false;
        taken.set(uid - range.first());
        return true;
    }

    /** Gives {@code uid} back; a uid outside the range or not taken is ignored. */
    public synchronized void free(int uid) {
        if (range.contains(uid)) taken.clear(uid - range.first());
    }

    public synchronized int live() {
        return taken.cardinality();
    }
}
