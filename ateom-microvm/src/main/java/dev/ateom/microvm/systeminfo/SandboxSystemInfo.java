package dev.ateom.microvm.systeminfo;

import dev.ateom.microvm.systeminfo.source.SourceException;
import dev.ateom.microvm.systeminfo.source.VolumeAssembler;
import dev.ateom.microvm.systeminfo.spec.ActorIdentity;
import dev.ateom.microvm.systeminfo.spec.SystemInfoSpec;
import dev.ateom.microvm.systeminfo.spec.VolumeSpec;
import dev.ateom.microvm.systeminfo.sync.SourceWatcher;
import dev.ateom.microvm.systeminfo.sync.SyncFailureListener;
import dev.ateom.microvm.systeminfo.sync.SystemInfoMetrics;
import dev.ateom.microvm.systeminfo.volume.Ownership;
import dev.ateom.microvm.systeminfo.volume.VolumeWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The system-info volumes of one sandbox, under {@code <state>/sandboxes/<id>/system-info/}
 * (the share root; one directory per volume). Obtained from {@link SystemInfoService#forSandbox}.
 * The daemon calls {@link #writeAll} on create, {@link #startSync} while the VM runs (closing the
 * sync before the VM is paused), and {@link #regenerateWhileSaved} on resume and clone before
 * the VM is restored (while the share's virtiofsd starts: it writes inside the root, which stays the same dir).
 */
public final class SandboxSystemInfo {
    private static final System.Logger LOG = System.getLogger(SandboxSystemInfo.class.getName());

    private final String sandboxId;
    private final Path root;
    private final SystemInfoSpec spec;
    private final SystemInfoSettings settings;
    private final VolumeAssembler assembler;
    private final SourceWatcher watcher;
    private final SystemInfoMetrics metrics;
    private final SyncFailureListener failures;

    SandboxSystemInfo(String sandboxId, Path root, SystemInfoSpec spec, SystemInfoSettings settings,
                      SourceWatcher watcher, SystemInfoMetrics metrics, SyncFailureListener failures) {
        this.failures = failures;
        this.sandboxId = sandboxId;
        this.root = root;
        this.spec = spec;
        this.settings = settings;
        this.assembler = new VolumeAssembler(settings.limits());
        this.watcher = watcher;
        this.metrics = metrics;
    }

    public Path root() {
        return root;
    }

    /**
     * On create, before the system-info virtiofsd starts: writes every volume for {@code identity}.
     * Every source must be readable; on failure the volume directories this call created are removed.
     */
    public void writeAll(ActorIdentity identity) throws SystemInfoException {
        List<Path> created = new ArrayList<>();
        try {
            Files.createDirectories(root);
            for (VolumeSpec volume : spec.volumes()) {
                VolumeWriter writer = writer(volume);
                if (!Files.exists(writer.volumeDir(), LinkOption.NOFOLLOW_LINKS)) {
                    created.add(writer.volumeDir());
                }
                writer.commitWhileSaved(assembler.assemble(volume, identity).content());
            }
        } catch (SourceException | IOException e) {
            for (Path dir : created) {
                removeQuietly(dir);
            }
            throw new SystemInfoException("sandbox " + sandboxId + ": writing system-info volumes failed: " + e.getMessage(), e);
        }
    }

    /**
     * On resume or clone, while the VM is saved and before the share's virtiofsd starts: rewrites
     * every retained generation of every volume for {@code identity} (a clone's directory is new and
     * empty, a resume's holds the generations the guest may reference). A host source that cannot
     * be read does not fail the resume: its last good content is kept and reported.
     *
     * @throws SystemInfoException only when the volume directory itself cannot be written
     */
    public RegenerationReport regenerateWhileSaved(ActorIdentity identity) throws SystemInfoException {
        List<String> failures = new ArrayList<>();
        for (VolumeSpec volume : spec.volumes()) {
            VolumeWriter writer = writer(volume);
            try {
                Files.createDirectories(root);
                Optional<Path> lastGood = Optional.of(writer.dataDir()).filter(Files::isDirectory);
                VolumeAssembler.Assembly assembly;
                try {
                    assembly = assembler.assemble(volume, identity, lastGood);
                } catch (SourceException e) {
                    // e.g. the source grew past the limits: keep all host content, still refresh the identity
                    failures.add("volume '" + volume.name() + "': " + e.getMessage());
                    assembly = assembler.assembleKeepingHostContent(volume, identity, lastGood);
                }
                assembly.failures().forEach(f -> failures.add("volume '" + volume.name() + "' " + f));
                writer.commitWhileSaved(assembly.content());
            } catch (SourceException | IOException e) {
                throw new SystemInfoException("sandbox " + sandboxId + " volume " + volume.name()
                        + ": regenerating while saved failed: " + e.getMessage(), e);
            }
        }
        failures.forEach(f -> LOG.log(System.Logger.Level.WARNING,
                "sandbox {0}: kept the last good system-info content: {1}", sandboxId, f));
        return new RegenerationReport(failures);
    }

    /** Starts continuous sync of the {@code hostDirectory} volumes; close it before the VM is paused or deleted. */
    public SystemInfoSync startSync(ActorIdentity identity) {
        Map<VolumeSpec, VolumeWriter> synced = new LinkedHashMap<>();
        for (VolumeSpec volume : spec.volumes()) {
            if (volume.sources().stream().anyMatch(s -> s.hostDirectory() != null)) {
                synced.put(volume, writer(volume));
            }
        }
        SystemInfoSync sync = new SystemInfoSync(sandboxId, synced, identity, assembler, watcher, settings, metrics);
        sync.reportFailuresTo(failures);
        sync.start();
        return sync;
    }

    /** The writer of one volume (for inspection and tests). */
    public VolumeWriter writer(VolumeSpec volume) {
        return new VolumeWriter(root.resolve(volume.name()), new Ownership(volume.owner(), volume.group()),
                settings.retainedGenerations(), "sandbox " + sandboxId + " volume " + volume.name());
    }

    private void removeQuietly(Path dir) {
        try {
            new VolumeWriter(dir, Ownership.DAEMON, 1, "sandbox " + sandboxId).remove();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "sandbox {0}: could not remove {1}: {2}", sandboxId, dir, e.getMessage());
        }
    }
}
