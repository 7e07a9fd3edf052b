package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChunkCacheTest {
    @TempDir
    Path dir;

    private record Entry(ChunkHash hash, byte[] plain, byte[] frame) {
        static Entry of(int length, long seed) {
            byte[] plain = GuestSnapshot.random(length, seed);
            return new Entry(ChunkHash.of(plain, 0, length), plain, ChunkCodec.compress(plain, length));
        }
    }

    @Test
    void theLeastRecentlyUsedUnpinnedEntriesGoFirstAndTheLimitHolds() throws IOException {
        Entry a = Entry.of(1000, 1);
        Entry b = Entry.of(1000, 2);
        Entry c = Entry.of(1000, 3);
        ChunkCache cache = ChunkCache.open(dir, 2 * a.frame().length + 10);
        cache.put(a.hash(), a.frame());
        cache.put(b.hash(), b.frame());
        assertThat(cache.read(a.hash(), 1000)).hasValueSatisfying(bytes -> assertThat(bytes).isEqualTo(a.plain())); // a is now recent
        cache.put(c.hash(), c.frame());
        assertThat(cache.contains(b.hash())).isFalse();
        assertThat(cache.contains(a.hash())).isTrue();
        assertThat(cache.stats().bytes()).isLessThanOrEqualTo(cache.stats().maxBytes());

        try (ChunkCache.Pin _ = cache.pin(List.of(a.hash(), c.hash()))) {
            cache.put(b.hash(), b.frame());
            assertThat(cache.contains(b.hash())).as("no room without evicting a pinned entry").isFalse();
            assertThat(cache.contains(a.hash())).isTrue();
            assertThat(cache.contains(c.hash())).isTrue();
        }
        cache.put(b.hash(), b.frame());
        assertThat(cache.contains(b.hash())).isTrue();
        assertThat(cache.stats().entries()).isEqualTo(2);
    }

    @Test
    void aDamagedEntryIsDroppedAndReadsAsAMiss() throws IOException {
        Entry a = Entry.of(5000, 4);
        ChunkCache cache = ChunkCache.open(dir, 1 << 20);
        cache.put(a.hash(), a.frame());
        byte[] frame = Files.readAllBytes(dir.resolve(a.hash().hex()));
        frame[frame.length - 5] ^= 0x40;
        Files.write(dir.resolve(a.hash().hex()), frame);
        assertThat(cache.read(a.hash(), 5000)).isEmpty();
        assertThat(cache.contains(a.hash())).isFalse();
        assertThat(dir.resolve(a.hash().hex())).doesNotExist();
    }

    @Test
    void reopeningKeepsEntriesInTheirOrderOfUseAndEnforcesASmallerLimit() throws IOException {
        Entry a = Entry.of(1000, 5);
        Entry b = Entry.of(1000, 6);
        ChunkCache cache = ChunkCache.open(dir, 1 << 20);
        cache.put(a.hash(), a.frame());
        cache.put(b.hash(), b.frame());
        Files.setLastModifiedTime(dir.resolve(b.hash().hex()), FileTime.fromMillis(1000)); // b: used long ago
        Files.writeString(dir.resolve(".tmp-interrupted"), "x");

        ChunkCache reopened = ChunkCache.open(dir, a.frame().length + 10);
        assertThat(reopened.contains(a.hash())).isTrue();
        assertThat(reopened.contains(b.hash())).isFalse();
        assertThat(dir.resolve(".tmp-interrupted")).doesNotExist();
    }
}
