package dev.ateom.store;

import dev.ateom.snapshot.ArchiveCompression;
import dev.ateom.snapshot.ArchiveProgress;
import dev.ateom.snapshot.Manifest;
import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotMetadata;
import dev.ateom.snapshot.SnapshotStaging;
import dev.ateom.snapshot.SnapshotStore;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Builds a committed local snapshot the way the daemon does (stage, CHV's files, durable archive, commit), with
 * guest memory made of seeded random regions over holes and a durable tree of seeded files with fixed mtimes,
 * so two builds that differ in one region or file share every other byte.
 */
final class GuestSnapshot {
    static final Map<String, String> SHARES = Map.of("ateRootfs", "rootfs", "ateDurable", "durable", "ateSystemInfo", "system-info");
    private static final FileTime MTIME = FileTime.fromMillis(1_700_000_000_000L);

    private long memoryBytes = 8L << 20;
    private final List<long[]> regions = new ArrayList<>(); // {offset, length, seed, compressible}
    private final Map<String, long[]> files = new LinkedHashMap<>(); // name -> {length, seed, compressible}
    private final Map<String, String> annotations = new HashMap<>();

    GuestSnapshot memoryBytes(long bytes) {
        memoryBytes = bytes;
        return this;
    }

    /** {@code length} seeded random bytes at {@code offset} (later regions overwrite earlier ones). */
    GuestSnapshot memory(long offset, int length, long seed) {
        regions.add(new long[] {offset, length, seed, 0});
        return this;
    }

    /** Like {@link #memory}, with bytes from a 16-letter alphabet (zstd halves them, as it does much of real memory). */
    GuestSnapshot compressibleMemory(long offset, int length, long seed) {
        regions.add(new long[] {offset, length, seed, 1});
        return this;
    }

    GuestSnapshot durableFile(String name, int length, long seed) {
        files.put(name, new long[] {length, seed, 0});
        return this;
    }

    GuestSnapshot compressibleDurableFile(String name, int length, long seed) {
        files.put(name, new long[] {length, seed, 1});
        return this;
    }

    GuestSnapshot annotation(String key, String value) {
        annotations.put(key, value);
        return this;
    }

    Snapshot commit(SnapshotStore store, String snapshotId) throws IOException {
        Path durable = store.snapshotsDirectory().getParent().resolve("sandboxes").resolve("sb-" + snapshotId).resolve("durable");
        Files.createDirectories(durable);
        for (Map.Entry<String, long[]> file : files.entrySet()) {
            Path path = durable.resolve(file.getKey());
            Files.createDirectories(path.getParent());
            Files.write(path, bytes((int) file.getValue()[0], file.getValue()[1], file.getValue()[2] == 1));
            Files.setLastModifiedTime(path, MTIME);
        }
        try (var dirs = Files.walk(durable)) {
            for (Path dir : dirs.filter(Files::isDirectory).toList()) {
                Files.setLastModifiedTime(dir, MTIME);
            }
        }
        try (SnapshotStaging staging = store.stage(snapshotId)) {
            Path chv = staging.chvDirectory();
            Files.writeString(chv.resolve("config.json"), """
                    {"cpus":{"boot_vcpus":1,"max_vcpus":1},"memory":{"size":%d},
                     "fs":[{"tag":"ateRootfs","socket":"/run/ateom/x/rootfs.sock"},{"tag":"ateDurable","socket":"/run/ateom/x/durable.sock"},
                           {"tag":"ateSystemInfo","socket":"/run/ateom/x/system-info.sock"}]}
                    """.formatted(memoryBytes));
            Files.write(chv.resolve("state.json"), random(40_000, 7));
            try (RandomAccessFile memory = new RandomAccessFile(chv.resolve("memory-ranges").toFile(), "rw")) {
                memory.setLength(memoryBytes);
                for (long[] region : regions) {
                    memory.seek(region[0]);
                    memory.write(bytes((int) region[1], region[2], region[3] == 1));
                }
            }
            staging.archiveDurable(durable, ArchiveCompression.NONE, ArchiveProgress.NONE);
            return staging.commit(new SnapshotMetadata(new Manifest.SourceSandbox("sb-" + snapshotId, "guest", "team-a", "uid-" + snapshotId),
                    "54.0.0", SHARES, annotations));
        }
    }

    private static byte[] bytes(int length, long seed, boolean compressible) {
        byte[] bytes = random(length, seed);
        if (compressible) {
            for (int i = 0; i < length; i++) {
                bytes[i] = (byte) ('a' + (bytes[i] & 0x0f));
            }
        }
        return bytes;
    }

    static byte[] random(int length, long seed) {
        byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }
}
