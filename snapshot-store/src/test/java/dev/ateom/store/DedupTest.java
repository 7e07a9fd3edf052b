package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.snapshot.Snapshot;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Snapshots of clones of one golden snapshot, each a little different, share nearly all their chunks. */
class DedupTest extends StoreTestBase {
    private static final int MIB = 1 << 20;

    /** The golden guest: 40 MiB of memory data in a 64 MiB guest, a durable dir of one big and many small files. */
    static GuestSnapshot golden() {
        GuestSnapshot guest = new GuestSnapshot().memoryBytes(64L * MIB).memory(0, 24 * MIB, 1).memory(32L * MIB, 16 * MIB, 2)
                .durableFile("data/model.bin", 10 * MIB, 3);
        for (int i = 0; i < 96; i++) {
            guest.durableFile("data/small/file-" + i, 64 * 1024, 100 + i);
        }
        return guest;
    }

    /** What one clone does before it is suspended: dirties a few pages, rewrites one small file, adds a log. */
    static GuestSnapshot variation(int n) {
        return golden().memory(5L * MIB + n * 8192L, 8192, 1000 + n)
                .durableFile("data/small/file-" + (10 * n), 64 * 1024, 2000 + n)
                .durableFile("logs/clone.log", 3000, 3000 + n);
    }

    @Test
    void fiveSnapshotsOfSmallVariationsTakeAtMostOnePointThreeTimesOne() throws IOException {
        long one = 0;
        long uploadedAfterFirst = 0;
        for (int n = 1; n <= 5; n++) {
            Snapshot snapshot = variation(n).commit(hostA.local(), "clone-" + n);
            PushStatus pushed = hostA.remote().push(snapshot, PushListener.NONE);
            if (n == 1) {
                one = hostA.remote().describe("clone-1").orElseThrow().storedBytes();
            } else {
                uploadedAfterFirst += pushed.bytesUploaded();
                assertThat(pushed.bytesDeduplicated()).isGreaterThan(pushed.totalBytes() / 2);
            }
        }
        long stored = raw.bytesUnder("chunks/");
        double ratio = (double) stored / one;
        System.out.printf("dedup: 5 snapshots of variations of one golden snapshot store %d bytes; one alone stores %d bytes;"
                + " ratio %.3f (limit 1.3); snapshots 2-5 uploaded %d bytes%n", stored, one, ratio, uploadedAfterFirst);
        assertThat(ratio).isLessThanOrEqualTo(1.3);
        assertThat(stored).isGreaterThan(one); // the variations did add something
    }
}
