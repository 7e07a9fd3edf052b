package dev.ateom.store;

/**
 * FastCDC content-defined cut points (Xia et al., "FastCDC", USENIX ATC 2016, with normalized chunking):
 * a gear rolling hash over the bytes, a cut where its masked bits are zero, a harder mask before the normal size
 * and an easier one after it, so chunk sizes cluster around the normal size. Because a cut depends only on the
 * bytes just before it, an insert or delete moves the boundaries of the chunk it touches and no others.
 *
 * <p>The parameters and the gear table are part of the remote format (changing them changes every chunk):
 * min 512 KiB, normal 1 MiB, max 4 MiB; the average on random data is about 1.2 MiB.
 */
final class FastCdc {
    static final int MIN_SIZE = 512 * 1024;
    static final int NORMAL_SIZE = 1024 * 1024;
    static final int MAX_SIZE = 4 * 1024 * 1024;
    /** The name of this chunking in remote manifests. */
    static final String NAME = "fastcdc-512k-1m-4m";

    private static final int NORMAL_BITS = 20; // log2(NORMAL_SIZE)
    private static final long MASK_HARD = spreadMask(NORMAL_BITS + 2);
    private static final long MASK_EASY = spreadMask(NORMAL_BITS - 2);
    private static final long[] GEAR = gearTable();

    private FastCdc() {
    }

    /** The length of the chunk that starts at {@code offset}, given {@code available} bytes there (all the rest at EOF, else at least MAX_SIZE). */
    static int cut(byte[] data, int offset, int available) {
        if (available <= MIN_SIZE) {
            return available;
        }
        int end = Math.min(available, MAX_SIZE);
        int normal = Math.min(end, NORMAL_SIZE);
        long hash = 0;
        int i = MIN_SIZE;
        for (; i < normal; i++) {
            hash = (hash << 1) + GEAR[data[offset + i] & 0xff];
            if ((hash & MASK_HARD) == 0) {
                return i + 1;
            }
        }
        for (; i < end; i++) {
            hash = (hash << 1) + GEAR[data[offset + i] & 0xff];
            if ((hash & MASK_EASY) == 0) {
                return i + 1;
            }
        }
        return end;
    }

    /**
     * {@code ones} bits spread evenly over bits 16..63: with the shift-left gear hash, bit k depends on the last
     * k+1 bytes, so high bits give the hash a window of up to 64 bytes.
     */
    static long spreadMask(int ones) {
        long mask = 0;
        for (int j = 0; j < ones; j++) {
            mask |= 1L << (63 - (j * 48) / ones);
        }
        return mask;
    }

    /** 256 pseudo-random 64-bit values from SplitMix64 with a fixed seed (spelled out here so no library change moves them). */
    private static long[] gearTable() {
        long[] table = new long[256];
        long state = 0x6174656f6d636463L; // "ateomcdc"
        for (int i = 0; i < table.length; i++) {
            state += 0x9e3779b97f4a7c15L;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
            z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
            table[i] = z ^ (z >>> 31);
        }
        return table;
    }
}
