package dev.ateom.microvm.systeminfo.source;

import dev.ateom.microvm.systeminfo.spec.ActorIdentity;
import dev.ateom.microvm.systeminfo.spec.ActorMetadataSource.MetadataItem;
import dev.ateom.microvm.systeminfo.spec.FileMode;
import dev.ateom.microvm.systeminfo.spec.SourceSpec;
import dev.ateom.microvm.systeminfo.spec.VolumeSpec;
import dev.ateom.microvm.systeminfo.volume.FileContent;
import dev.ateom.microvm.systeminfo.volume.VolumeContent;
import dev.ateom.microvm.systeminfo.volume.VolumeFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/** Builds the content of one volume from its sources and the sandbox's identity. */
public final class VolumeAssembler {
    private final HostDirectoryReader reader;
    private final SourceLimits limits;
    // sources seen with the kubelet layout: losing ..data means they are being removed
    private final Set<Path> kubeletRoots = ConcurrentHashMap.newKeySet();

    public VolumeAssembler(SourceLimits limits) {
        this.limits = limits;
        this.reader = new HostDirectoryReader(limits);
    }

    /** What one assembly produced: the content, the directories to watch, and the sources that failed. */
    public record Assembly(VolumeContent content, Set<Path> watchDirs, List<SourceFailure> failures) {}

    /** A source that could not be read; {@code index} is its position in the volume's {@code sources}. */
    public record SourceFailure(int index, String message) {
        @Override
        public String toString() {
            return "sources[" + index + "]: " + message;
        }
    }

    /** All sources must be readable; the first failure is thrown. */
    public Assembly assemble(VolumeSpec volume, ActorIdentity identity) throws SourceException {
        Assembly assembly = assemble(volume, identity, Optional.empty());
        if (!assembly.failures().isEmpty()) {
            throw new SourceException("volume '" + volume.name() + "' " + assembly.failures().getFirst());
        }
        return assembly;
    }

    /**
     * Never fails because of a source: a failing host directory contributes what the last good
     * generation ({@code lastGood}, a {@code ..data} dir) holds for it, and is reported in
     * {@link Assembly#failures()}. Structural problems (paths colliding across sources, the
     * volume's total size) still throw.
     */
    public Assembly assemble(VolumeSpec volume, ActorIdentity identity, Optional<Path> lastGood) throws SourceException {
        return assemble(volume, identity, lastGood, false);
    }

    /**
     * The identity refreshed, every host source's files taken from the last good generation
     * unchanged: the fallback when the sources' current data cannot make a valid volume.
     */
    public Assembly assembleKeepingHostContent(VolumeSpec volume, ActorIdentity identity, Optional<Path> lastGood)
            throws SourceException {
        return assemble(volume, identity, lastGood, true);
    }

    private Assembly assemble(VolumeSpec volume, ActorIdentity identity, Optional<Path> lastGood, boolean skipHostSources)
            throws SourceException {
        List<VolumeFile> files = new ArrayList<>();
        Set<Path> watchDirs = new HashSet<>();
        List<SourceFailure> failures = new ArrayList<>();
        List<SourceSpec> failedSources = new ArrayList<>();
        for (int i = 0; i < volume.sources().size(); i++) {
            SourceSpec source = volume.sources().get(i);
            if (source.actorMetadata() != null) {
                for (MetadataItem item : source.actorMetadata().items()) {
                    byte[] value = identity.value(item.metadataField()).getBytes(StandardCharsets.UTF_8);
                    files.add(new VolumeFile(item.path(), volume.effectiveDefaultMode(), new FileContent.Bytes(value)));
                }
                continue;
            }
            if (skipHostSources) {
                failedSources.add(source);
                continue;
            }
            Path sourceRoot = Path.of(source.hostDirectory().path());
            try {
                if (!Files.exists(sourceRoot)) {
                    kubeletRoots.remove(sourceRoot); // gone: it may come back with any layout
                }
                HostDirectoryReader.Listing listing = reader.read(
                        source.hostDirectory(), volume.effectiveDefaultMode(), kubeletRoots.contains(sourceRoot));
                if (listing.kubeletLayout()) {
                    kubeletRoots.add(sourceRoot);
                }
                files.addAll(listing.files());
                watchDirs.addAll(listing.watchDirs());
            } catch (SourceException e) {
                failures.add(new SourceFailure(i, e.getMessage()));
                failedSources.add(source);
                // still watch where the source should be, so its return is seen
                watchDirs.add(Path.of(source.hostDirectory().path()));
            }
        }
        if (!failedSources.isEmpty() && lastGood.isPresent()) {
            files.addAll(lastGoodFiles(volume, failedSources, files, lastGood.get()));
        }
        return new Assembly(checked(volume, files), watchDirs, failures);
    }

    /** Files of the last good generation that belong to the failed sources (items by path, else all unclaimed). */
    private List<VolumeFile> lastGoodFiles(VolumeSpec volume, List<SourceSpec> failed, List<VolumeFile> claimed, Path dataDir)
            throws SourceException {
        Set<String> taken = new HashSet<>();
        claimed.forEach(f -> taken.add(f.path()));
        List<VolumeFile> out = new ArrayList<>();
        for (SourceSpec source : failed) {
            if (source.hostDirectory().projectsAllFiles()) {
                for (String path : filesUnder(dataDir)) {
                    if (taken.add(path)) {
                        out.add(keep(volume, dataDir, path, Optional.empty()));
                    }
                }
            } else {
                for (var item : source.hostDirectory().items()) {
                    if (Files.isRegularFile(dataDir.resolve(item.path()), LinkOption.NOFOLLOW_LINKS) && taken.add(item.path())) {
                        out.add(keep(volume, dataDir, item.path(), Optional.ofNullable(item.mode())));
                    }
                }
            }
        }
        return out;
    }

    private VolumeFile keep(VolumeSpec volume, Path dataDir, String path, Optional<FileMode> mode) {
        return new VolumeFile(path, mode.orElse(volume.effectiveDefaultMode()),
                new FileContent.HostFile(dataDir.resolve(path), limits.maxFileBytes()));
    }

    private static List<String> filesUnder(Path dataDir) throws SourceException {
        if (!Files.isDirectory(dataDir, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(dataDir)) {
            return walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                    .map(p -> dataDir.relativize(p).toString())
                    .toList();
        } catch (IOException | UncheckedIOException e) {
            throw new SourceException("last good generation " + dataDir + " could not be listed: " + e.getMessage(), e);
        }
    }

    private VolumeContent checked(VolumeSpec volume, List<VolumeFile> files) throws SourceException {
        if (files.size() > limits.maxFiles()) {
            throw new SourceException("volume '" + volume.name() + "' would hold " + files.size()
                    + " files, more than the limit of " + limits.maxFiles());
        }
        long total = 0;
        for (VolumeFile file : files) {
            if (file.content() instanceof FileContent.HostFile host) {
                try {
                    total += Files.size(host.path());
                } catch (IOException e) {
                    throw new SourceException("volume '" + volume.name() + "': " + host.path() + " vanished while it was read", e);
                }
            }
        }
        if (total > limits.maxVolumeBytes()) {
            throw new SourceException("volume '" + volume.name() + "' would hold " + total
                    + " bytes, more than the limit of " + limits.maxVolumeBytes());
        }
        try {
            return new VolumeContent(files);
        } catch (IllegalArgumentException e) {
            throw new SourceException("volume '" + volume.name() + "': " + e.getMessage(), e);
        }
    }
}
