package dev.ateom.microvm.sandbox;

import dev.ateom.snapshot.ChvConfig;
import dev.ateom.snapshot.ChvConfigPolicy;
import dev.ateom.snapshot.DurableArchive;
import dev.ateom.snapshot.ExtractOptions;
import dev.ateom.snapshot.RestoreDirectory;
import dev.ateom.snapshot.RestoreSockets;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a restore (resume, clone) does with a snapshot it opened: checks its config.json is what ateom writes,
 * prepares the per-restore dir CHV restores from, and lays the durable archive out, complete or not at all.
 */
public final class SnapshotRestores {
    private static final System.Logger LOG = System.getLogger(SnapshotRestores.class.getName());

    private SnapshotRestores() {}

    /** The per-restore source dir, made empty (with its parents) for {@link #fillRestore}. */
    public static Path createRestoreDir(Path restoreDir) {
        try {
            Files.createDirectories(restoreDir.getParent());
            return RestoreDirectory.create(restoreDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create restore dir " + restoreDir, e);
        }
    }

    /** Fills the empty per-restore source dir: rewritten config.json, state and memory hard-linked from the snapshot. */
    public static Path fillRestore(SnapshotCatalog.SnapshotHandle handle, Path restoreDir, Map<String, Path> socketsByTag, Path vsock, Path console) {
        // made only from the config.json that was checked, as it was read then: a second read could see an edit
        ChvConfig checked = handle.checkedConfig().orElseThrow(() -> new IllegalStateException(
                "snapshot " + handle.id() + ": a restore dir is made only from a config.json checked by requireConfigAsWritten"));
        try {
            return RestoreDirectory.fill(handle.snapshot().layout(), checked, restoreDir,
                    new RestoreSockets(socketsByTag, Optional.of(vsock), Optional.of(console), Optional.empty())).directory();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare restore dir " + restoreDir + " from snapshot " + handle.id(), e);
        }
    }

    /**
     * config.json can be edited on disk and CHV opens every host path in it: it must be what ateom writes for the
     * stored spec (payload, sizing, shares; no disks, pmem, devices or other paths). Called before anything is
     * started for a restore, so a refusal leaves nothing behind.
     *
     * @return the handle with the config as read and accepted here, the one {@link #fillRestore} rewrites
     */
    public static SnapshotCatalog.SnapshotHandle requireConfigAsWritten(SnapshotCatalog.SnapshotHandle handle) {
        SandboxSpec spec = handle.sandboxSpec();
        ChvConfig config;
        List<String> problems;
        try {
            config = ChvConfig.read(handle.snapshot().layout().chvConfig());
            problems = ChvConfigPolicy.check(config, new ChvConfigPolicy.Expected(
                    spec.kernel(), Optional.ofNullable(spec.initramfs()), spec.vcpus() == null ? 0 : spec.vcpus(),
                    spec.memoryMib() == null ? 0 : (long) spec.memoryMib() << 20, spec.hasNetwork()));
        } catch (IOException e) {
            throw new SnapshotUnusableException(handle.id(), "has an unreadable config.json: " + e.getMessage());
        }
        if (!problems.isEmpty()) {
            throw new SnapshotUnusableException(handle.id(), "has a config.json ateom did not write: " + String.join("; ", problems));
        }
        return handle.withCheckedConfig(config);
    }

    /** Lays the snapshot's durable archive at {@code target} (which must not exist), complete or not at all. */
    public static void extractDurable(SnapshotCatalog.SnapshotHandle handle, Path target) {
        try {
            DurableArchive.extract(handle.snapshot().layout().durableArchive(), target, extractOptions(handle)
                    .withProgress(ArchiveProgressReports.toOperation(handle.snapshot().manifest().durableArchive().contentBytes())));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract the durable archive of snapshot " + handle.id() + " into " + target, e);
        }
    }

    /** Replaces an existing durable dir with the snapshot's archive, atomically (the old tree is swapped out, then removed). */
    public static void replaceDurable(SnapshotCatalog.SnapshotHandle handle, Path durableDir) {
        try {
            DurableArchive.extract(handle.snapshot().layout().durableArchive(), durableDir, extractOptions(handle).replacingExisting());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lay the durable archive of snapshot " + handle.id() + " over " + durableDir, e);
        }
    }

    /** An archive holding more entries than its manifest lists is refused, so extraction memory and time stay bounded. */
    private static ExtractOptions extractOptions(SnapshotCatalog.SnapshotHandle handle) {
        return ExtractOptions.DEFAULT.withMaxEntries(handle.snapshot().manifest().durableArchive().entries());
    }

    /** Removes the hidden trees a durable extraction interrupted by a crash left in {@code sandboxDir}. */
    public static void removeInterruptedExtractions(Path sandboxDir) {
        try {
            int removed = DurableArchive.removeInterruptedExtractions(sandboxDir);
            if (removed > 0) LOG.log(System.Logger.Level.INFO, "removed " + removed + " interrupted extraction(s) in " + sandboxDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot sweep interrupted extractions in " + sandboxDir, e);
        }
    }
}
