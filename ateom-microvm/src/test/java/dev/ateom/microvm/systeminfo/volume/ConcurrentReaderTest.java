package dev.ateom.microvm.systeminfo.volume;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Invariants 1 and 2 under load: readers hammer the volume while 10 000 generations are committed.
 * Every file's content is "<generation> <name>", so a reader can tell which generation it saw.
 */
class ConcurrentReaderTest {
    private static final int GENERATIONS = 10_000;
    private static final int RETAINED = 4;
    private static final List<String> NAMES = List.of("tls.crt", "tls.key", "ca.crt", "token", "namespace");

    @TempDir(factory = MemoryBackedTempDir.class)
    Path tmp;

    private final AtomicLong committed = new AtomicLong();
    private final AtomicBoolean done = new AtomicBoolean();
    private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();

    @Test
    void readersNeverSeeAMixedGenerationNorMissAPathPresentInBothNeighbours() throws Exception {
        VolumeWriter writer = new VolumeWriter(tmp.resolve("vol"), Ownership.DAEMON, RETAINED, "concurrent");
        writer.commitWhileRunning(content(0));
        Path vol = writer.volumeDir();

        AtomicLong listings = new AtomicLong();
        AtomicLong retired = new AtomicLong();
        AtomicLong pathReads = new AtomicLong();
        Thread lister = Thread.ofPlatform().start(() -> listWholeGenerations(vol, listings, retired));
        Thread pathReader = Thread.ofPlatform().start(() -> readByPath(vol, pathReads));

        long start = System.nanoTime();
        for (int gen = 1; gen < GENERATIONS; gen++) {
            writer.commitWhileRunning(content(gen));
            committed.set(gen);
        }
        done.set(true);
        long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
        lister.join();
        pathReader.join();

        System.out.printf("%d generations in %d ms; %d listings (%d lost their generation), %d reads by path%n",
                GENERATIONS, elapsedMillis, listings.get(), retired.get(), pathReads.get());
        assertThat(problems).isEmpty();
        assertThat(listings.get()).as("listings done").isGreaterThan(1000);
        assertThat(pathReads.get()).as("reads by path done").isGreaterThan(1000);
        // a listing can only lose its generation when the writer retired it RETAINED commits later
        assertThat(retired.get()).as("listings whose generation was dropped meanwhile").isLessThan(listings.get() / 10);
        assertThat(Files.readString(vol.resolve("token"))).isEqualTo((GENERATIONS - 1) + " token");
    }

    private static VolumeContent content(int gen) {
        List<VolumeFile> files = new ArrayList<>();
        for (String name : NAMES) {
            files.add(VolumeWriterTest.file(name, gen + " " + name));
        }
        return new VolumeContent(files);
    }

    /** "A reader listing the volume": opens ..data once, lists it and reads every file relative to it. */
    private void listWholeGenerations(Path vol, AtomicLong listings, AtomicLong retired) {
        while (!done.get()) {
            long committedBefore = committed.get();
            Map<String, Long> seen = new HashMap<>();
            try (DirectoryStream<Path> dir = Files.newDirectoryStream(vol.resolve("..data"))) {
                SecureDirectoryStream<Path> secure = (SecureDirectoryStream<Path>) dir;
                List<Path> entries = new ArrayList<>();
                secure.forEach(entries::add);
                for (Path entry : entries) {
                    Path name = entry.getFileName();
                    try (SeekableByteChannel ch = secure.newByteChannel(name, Set.of(StandardOpenOption.READ))) {
                        seen.put(name.toString(), generationOf(readAll(ch), name.toString()));
                    }
                }
                if (seen.size() != NAMES.size()) {
                    // a generation being dropped loses its files one by one; never one still retained
                    long generation = seen.values().stream().mapToLong(Long::longValue).min().orElse(committedBefore);
                    if (committed.get() - generation < RETAINED) {
                        problems.add("listing of generation " + generation + " saw only " + seen.keySet()
                                + " while " + (committed.get() - generation) + " newer existed");
                    }
                    retired.incrementAndGet();
                }
                if (seen.values().stream().distinct().count() > 1) {
                    problems.add("mixed generations in one listing: " + seen);
                }
                listings.incrementAndGet();
            } catch (NoSuchFileException e) {
                // the generation this listing opened was dropped: only legal once RETAINED newer ones exist
                long oldest = seen.values().stream().mapToLong(Long::longValue).min().orElse(committedBefore);
                if (committed.get() - oldest < RETAINED) {
                    problems.add("generation " + oldest + " vanished while only " + (committed.get() - oldest) + " newer existed: " + e);
                }
                retired.incrementAndGet();
                listings.incrementAndGet();
            } catch (IOException | RuntimeException e) {
                problems.add("listing failed: " + e);
            }
        }
    }

    /** Opens every user-visible name by path: each exists in all generations, so it must always open. */
    private void readByPath(Path vol, AtomicLong reads) {
        Map<String, Long> last = new HashMap<>();
        while (!done.get()) {
            for (String name : NAMES) {
                try {
                    long gen = generationOf(Files.readString(vol.resolve(name)), name);
                    if (gen < last.getOrDefault(name, -1L)) {
                        problems.add(name + " went back from generation " + last.get(name) + " to " + gen);
                    }
                    last.put(name, gen);
                    reads.incrementAndGet();
                } catch (IOException | RuntimeException e) {
                    problems.add("open by path of " + name + " failed: " + e);
                }
            }
        }
    }

    private static String readAll(SeekableByteChannel ch) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(256);
        while (ch.read(buffer) > 0) {
            // small files
        }
        return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
    }

    private long generationOf(String content, String name) {
        String[] parts = content.split(" ");
        if (parts.length != 2 || !parts[1].equals(name)) {
            problems.add("file " + name + " held '" + content + "'");
            return -1;
        }
        return Long.parseLong(parts[0]);
    }
}
