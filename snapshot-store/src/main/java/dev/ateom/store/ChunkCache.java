package dev.ateom.store;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Chunks pulled from the store, kept on local disk as stored (zstd frames named by their hash) so a later pull
 * of a related snapshot downloads only what is new. Bounded: inserting evicts the least recently used chunks
 * until the cache fits, never a pinned one; a chunk that cannot fit is simply not kept. Every read is verified
 * against the hash, and a damaged entry is dropped and treated as a miss. Recency survives restarts through
 * the files' mtimes. A pull assembles complete snapshot files, so no local snapshot ever depends on an entry.
 */
public final class ChunkCache {
    private static final System.Logger LOG = System.getLogger(ChunkCache.class.getName());
    private static final String TEMP_PREFIX = ".tmp-";

    private final Path directory;
    private final long maxBytes;
    private final Object lock = new Object();
    /** Access-ordered: iteration starts at the least recently used. */
    private final LinkedHashMap<ChunkHash, Long> sizes = new LinkedHashMap<>(16, 0.75f, true);
    private final Map<ChunkHash, Integer> pins = new HashMap<>();
    /** Entries whose room is reserved but whose file is still being written. */
    private final Set<ChunkHash> writing = new HashSet<>();
    private long bytes;
    private long hits;
    private long misses;
    private long evictions;

    private ChunkCache(Path directory, long maxBytes) {
        this.directory = directory;
        this.maxBytes = maxBytes;
    }

    /** Opens (creating) the cache dir, removes interrupted writes and indexes the entries by their last use. */
    public static ChunkCache open(Path directory, long maxBytes) throws IOException {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("chunk cache limit must not be negative");
        }
        Files.createDirectories(directory);
        ChunkCache cache = new ChunkCache(directory, maxBytes);
        record Found(ChunkHash hash, long size, FileTime used) {
        }
        List<Found> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.startsWith(TEMP_PREFIX)) {
                    Files.deleteIfExists(entry);
                } else if (ChunkHash.isValid(name) && Files.isRegularFile(entry)) {
                    found.add(new Found(new ChunkHash(name), Files.size(entry), Files.getLastModifiedTime(entry)));
                }
            }
        }
        found.sort((a, b) -> a.used().compareTo(b.used()));
        synchronized (cache.lock) {
            for (Found entry : found) {
                cache.sizes.put(entry.hash(), entry.size());
                cache.bytes += entry.size();
            }
            cache.evictUntilFits(0);
        }
        return cache;
    }

    /** The plain bytes of a cached chunk of {@code length} bytes, verified; empty when absent or damaged. */
    public Optional<byte[]> read(ChunkHash hash, int length) {
        synchronized (lock) {
            if (sizes.get(hash) == null || writing.contains(hash)) {
                misses++;
                return Optional.empty();
            }
        }
        Path file = directory.resolve(hash.hex());
        try {
            byte[] plain = ChunkCodec.decompressVerified(hash, Files.readAllBytes(file), length);
            Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis()));
            synchronized (lock) {
                hits++;
            }
            return Optional.of(plain);
        } catch (NoSuchFileException e) {
            forget(hash);
        } catch (ChunkCorruptException e) {
            LOG.log(Level.WARNING, "dropping damaged cache entry: {0}", e.getMessage());
            remove(hash);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot read cache entry {0}: {1}", file, e.toString());
        }
        synchronized (lock) {
            misses++;
        }
        return Optional.empty();
    }

    /** Keeps a verified chunk frame, evicting unpinned LRU entries to make room; not kept if it cannot fit. */
    public void put(ChunkHash hash, byte[] frame) {
        synchronized (lock) {
            if (sizes.containsKey(hash)) {
                return;
            }
            if (!evictUntilFits(frame.length)) {
                return;
            }
            // reserve the room now so concurrent puts cannot overshoot the limit together
            sizes.put(hash, (long) frame.length);
            bytes += frame.length;
            writing.add(hash);
        }
        Path temp = directory.resolve(TEMP_PREFIX + hash.hex() + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        try {
            writeFile(temp, frame);
            Files.move(temp, directory.resolve(hash.hex()), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            synchronized (lock) {
                writing.remove(hash);
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot cache chunk {0}: {1}", hash, e.toString());
            synchronized (lock) {
                writing.remove(hash);
                forget(hash);
            }
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // a leftover temp file is removed at the next open
            }
        }
    }

    /** One write of the whole frame ({@code Files.write} hands the channel 8 KiB at a time: a thousand syscalls per chunk). */
    private static void writeFile(Path file, byte[] content) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
    }

    /** Keeps these chunks from being evicted until the pin is closed (for chunks a pull is about to read from the cache). */
    public Pin pin(Collection<ChunkHash> hashes) {
        List<ChunkHash> pinned = List.copyOf(hashes);
        synchronized (lock) {
            pinned.forEach(hash -> pins.merge(hash, 1, Integer::sum));
        }
        return new Pin(pinned);
    }

    public boolean contains(ChunkHash hash) {
        synchronized (lock) {
            return sizes.containsKey(hash);
        }
    }

    public Stats stats() {
        synchronized (lock) {
            return new Stats(sizes.size(), bytes, maxBytes, hits, misses, evictions);
        }
    }

    public Path directory() {
        return directory;
    }

    /** @param hits reads served from the cache; {@code misses} reads it could not serve */
    public record Stats(int entries, long bytes, long maxBytes, long hits, long misses, long evictions) {
    }

    /** Chunks held in the cache; close to let them be evicted again. */
    public final class Pin implements AutoCloseable {
        private final List<ChunkHash> hashes;
        private boolean closed;

        private Pin(List<ChunkHash> hashes) {
            this.hashes = hashes;
        }

        @Override
        public void close() {
            synchronized (lock) {
                if (closed) {
                    return;
                }
                closed = true;
                for (ChunkHash hash : hashes) {
                    pins.computeIfPresent(hash, (key, count) -> count == 1 ? null : count - 1);
                }
            }
        }
    }

    /** Evicts LRU unpinned entries until {@code incoming} more bytes fit; false if they cannot (caller holds the lock). */
    private boolean evictUntilFits(long incoming) {
        if (incoming > maxBytes) {
            return false;
        }
        Iterator<Map.Entry<ChunkHash, Long>> oldestFirst = sizes.entrySet().iterator();
        List<ChunkHash> victims = new ArrayList<>();
        long freed = 0;
        while (bytes - freed + incoming > maxBytes && oldestFirst.hasNext()) {
            Map.Entry<ChunkHash, Long> entry = oldestFirst.next();
            if (!pins.containsKey(entry.getKey()) && !writing.contains(entry.getKey())) {
                victims.add(entry.getKey());
                freed += entry.getValue();
            }
        }
        if (bytes - freed + incoming > maxBytes) {
            return false;
        }
        for (ChunkHash victim : victims) {
            remove(victim);
            evictions++;
        }
        return true;
    }

    private void remove(ChunkHash hash) {
        synchronized (lock) {
            forget(hash);
            try {
                Files.deleteIfExists(directory.resolve(hash.hex()));
            } catch (IOException e) {
                LOG.log(Level.WARNING, "cannot remove cache entry {0}: {1}", hash, e.toString());
            }
        }
    }

    private void forget(ChunkHash hash) {
        synchronized (lock) {
            Long size = sizes.remove(hash);
            if (size != null) {
                bytes -= size;
            }
        }
    }
}
