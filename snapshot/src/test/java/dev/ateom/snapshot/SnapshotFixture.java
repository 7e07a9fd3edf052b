package dev.ateom.snapshot;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/** Plays CHV and the daemon for store tests: the real sample config.json/state.json, a memory-ranges, a durable tree. */
final class SnapshotFixture {
    static final long MEMORY_SIZE = 268_435_456L; // memory.size of the sample config.json
    static final Map<String, String> SHARES = Map.of("ateRootfs", "rootfs", "ateDurable", "durable", "ateSystemInfo", "system-info");
    static final Manifest.SourceSandbox SOURCE = new Manifest.SourceSandbox("sb-1", "alice", "team-a", "uid-1234");
    static final SnapshotMetadata METADATA = new SnapshotMetadata(SOURCE, "54.0.0", SHARES);

    private SnapshotFixture() {
    }

    /** What vm.snapshot leaves in chv/: here memory-ranges is written densely with a few non-zero pages, like after OnDemand. */
    static void writeChvFiles(Path chvDir, boolean dense) throws IOException {
        copyResource("/chv-samples/config.json", chvDir.resolve("config.json"));
        copyResource("/chv-samples/state.json", chvDir.resolve("state.json"));
        try (RandomAccessFile raf = new RandomAccessFile(chvDir.resolve("memory-ranges").toFile(), "rw")) {
            raf.setLength(MEMORY_SIZE);
            byte[] chunk = new byte[1 << 20];
            if (dense) {
                for (long offset = 0; offset < 8L << 20; offset += chunk.length) {
                    raf.seek(offset);
                    raf.write(chunk); // 8 MiB of explicit zeros
                }
            }
            Arrays.fill(chunk, 0, 4096, (byte) 0x5a);
            raf.seek(4096);
            raf.write(chunk, 0, 4096);
            raf.seek(MEMORY_SIZE - 4096);
            raf.write(chunk, 0, 4096);
        }
    }

    /** A sandbox dir as the daemon lays it out: durable/ and system-info/ side by side. */
    static Path sandbox(Path stateDir, String id) throws IOException {
        Path sandbox = stateDir.resolve("sandboxes").resolve(id);
        Files.createDirectories(sandbox.resolve("durable/data/sub"));
        Files.writeString(sandbox.resolve("durable/data/notes.txt"), "durable notes of " + id);
        Files.writeString(sandbox.resolve("durable/data/sub/more"), "more");
        Files.createDirectories(sandbox.resolve("system-info/identity/..data"));
        Files.writeString(sandbox.resolve("system-info/identity/..data/name"), "identity of " + id);
        return sandbox;
    }

    static Snapshot commit(SnapshotStore store, Path stateDir, String snapshotId) throws IOException {
        Path sandbox = sandbox(stateDir, "sb-" + snapshotId);
        try (SnapshotStaging staging = store.stage(snapshotId)) {
            writeChvFiles(staging.chvDirectory(), true);
            staging.archiveDurable(sandbox.resolve("durable"), ArchiveCompression.NONE, ArchiveProgress.NONE);
            return staging.commit(METADATA);
        }
    }

    static void copyResource(String resource, Path target) throws IOException {
        try (InputStream in = SnapshotFixture.class.getResourceAsStream(resource)) {
            Files.copy(in, target);
        }
    }
}
