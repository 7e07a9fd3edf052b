package dev.ateom.microvm.sandbox.operation;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Records which snapshot a sandbox's durable dir is identical to: written when a suspend commits, removed
 * (durably) before a restored guest is let run. A resume reuses the durable dir only when the marker names
 * the snapshot it resumes from; otherwise the guest may have written to it after that snapshot (a resume
 * that failed or crashed after {@code vm.resume}) and the dir is laid anew from the snapshot's archive, so
 * the restored memory never meets files from a future it does not know.
 */
final class DurableSyncMarker {
    private static final String FILE = "durable.synced";
    private final Path file;

    DurableSyncMarker(Path sandboxDir) { this.file = sandboxDir.resolve(FILE); }

    Optional<String> snapshotId() {
        try {
            return Optional.of(Files.readString(file, StandardCharsets.UTF_8).strip());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    boolean isInSyncWith(String snapshotId) { return snapshotId().filter(snapshotId::equals).isPresent(); }

    void markInSyncWith(String snapshotId) {
        Path tmp = file.resolveSibling(FILE + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(ByteBuffer.wrap((snapshotId + "\n").getBytes(StandardCharsets.UTF_8)));
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            syncDir();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /**
     * Removes the marker without an fsync: durable only with the next fsync of the sandbox dir, which the caller
     * must await before the guest runs (the fsynced save of the record with the runtime, in the same directory).
     */
    void removeUnsynced() {
        remove(false);
    }

    /** Removes the marker, durably. */
    void clear() {
        remove(true);
    }

    private void remove(boolean synced) {
        try {
            if (Files.deleteIfExists(file) && synced) syncDir();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + file, e);
        }
    }

    private void syncDir() throws IOException {
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        }
    }
}
