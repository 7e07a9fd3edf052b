package dev.ateom.microvm.sandbox.operation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * Records which snapshot a sandbox's durable dir is identical to: written when a suspend commits, removed before a
 * restored guest is let run. A resume reuses the durable dir only when the marker names the snapshot it resumes from
 * and was written since the host last booted; otherwise the guest may have written to it after that snapshot (a
 * resume that failed or crashed after {@code vm.resume}) and the dir is laid anew from the snapshot's archive, so
 * the restored memory never meets files from a future it does not know.
 *
 * <p>Why the boot: the dir's files are the guest's writes through virtiofsd, in the host's page cache until the
 * kernel writes them back; nothing fsyncs them at a suspend (the archive that is fsynced is the snapshot's copy). A
 * daemon crash loses none of them, but a host crash can, and the restored memory would then meet files from a past it
 * does not know. A marker from an earlier boot is therefore never trusted, which also means the marker needs no
 * fsync of its own: its write, its removal and its loss in a host crash all end in the same safe place, a dir laid
 * from the archive (caveat: one extraction per suspended sandbox after every reboot, and after the upgrade that
 * introduced the boot, whose markers name none).
 */
final class DurableSyncMarker {
    private static final String FILE = "durable.synced";
    /** The kernel's id of this boot: a new one after every reboot, host crashes included. */
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");
    private final Path file;
    private final String bootId;

    DurableSyncMarker(Path sandboxDir) { this(sandboxDir, ThisBoot.ID); }

    /** @param bootId the boot the marker is trusted in (a test's stand-in for a reboot) */
    DurableSyncMarker(Path sandboxDir, String bootId) {
        this.file = sandboxDir.resolve(FILE);
        this.bootId = bootId;
    }

    /** The snapshot the dir is identical to, when the marker says so and was written in this boot. */
    Optional<String> snapshotId() {
        String content;
        try {
            content = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        // "<snapshot> <boot>"; a marker of another boot, or without one (written before boots were recorded), is not trusted
        String[] fields = content.split(" ");
        return fields.length == 2 && fields[1].equals(bootId) ? Optional.of(fields[0]) : Optional.empty();
    }

    boolean isInSyncWith(String snapshotId) { return snapshotId().filter(snapshotId::equals).isPresent(); }

    /** Written and renamed into place, without an fsync (see the class doc for why none is needed). */
    void markInSyncWith(String snapshotId) {
        Path tmp = file.resolveSibling(FILE + ".tmp");
        try {
            Files.writeString(tmp, snapshotId + " " + bootId + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** Removes the marker, without an fsync: in this boot the page cache keeps the removal, after a reboot none is trusted. */
    void clear() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + file, e);
        }
    }

    /** Read once per daemon: it cannot change while the daemon runs. */
    private static final class ThisBoot {
        static final String ID = read();

        private static String read() {
            try {
                return Files.readString(BOOT_ID, StandardCharsets.US_ASCII).strip();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the boot id from " + BOOT_ID + " (no procfs?)", e);
            }
        }
    }
}
