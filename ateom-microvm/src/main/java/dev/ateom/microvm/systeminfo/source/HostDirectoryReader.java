package dev.ateom.microvm.systeminfo.source;

import dev.ateom.microvm.systeminfo.spec.CleanRelativePath;
import dev.ateom.microvm.systeminfo.spec.FileMode;
import dev.ateom.microvm.systeminfo.spec.HostDirectorySource;
import dev.ateom.microvm.systeminfo.spec.HostDirectorySource.KeyItem;
import dev.ateom.microvm.systeminfo.volume.FileContent;
import dev.ateom.microvm.systeminfo.volume.VolumeFile;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Lists the current data of a {@code hostDirectory} source without reading file contents.
 * With the kubelet's layout ({@code <dir>/..data -> ..2026_...}) the data is the directory
 * {@code ..data} resolves to, which the kubelet never changes once it is linked, so one listing
 * is one consistent generation; the {@code ..}-names and the user-visible symlinks are never copied.
 * A plain directory is read as it is. Symlinks are followed only to regular files inside the
 * source directory; anything else (FIFO, socket, device, link outside) is an error.
 */
public final class HostDirectoryReader {
    // the kubelet's payload dirs (..2026_11_30_12_00_00.123) and its temporary link
    private static final Pattern KUBELET_INTERNAL = Pattern.compile("\\.\\.(\\d{4}_.*|data_tmp)");
    private final SourceLimits limits;

    public HostDirectoryReader(SourceLimits limits) {
        this.limits = limits;
    }

    /**
     * The files of the source's current data, the directories a watcher must observe to see every
     * change of it, and whether it has the kubelet's layout.
     */
    public record Listing(List<VolumeFile> files, Set<Path> watchDirs, boolean kubeletLayout) {}

    public Listing read(HostDirectorySource source, FileMode defaultMode) throws SourceException {
        return read(source, defaultMode, false);
    }

    /**
     * @param requireDataLink the source had the kubelet layout before: without {@code ..data} now it is
     *     being removed (its files go first, then the directory), not a directory that became empty
     */
    public Listing read(HostDirectorySource source, FileMode defaultMode, boolean requireDataLink) throws SourceException {
        Path root = Path.of(source.path());
        try {
            if (!Files.exists(root)) {
                throw new SourceException("host directory " + root + " does not exist");
            }
            if (!Files.isDirectory(root)) {
                throw new SourceException("host directory " + root + " is not a directory");
            }
            Path realRoot = root.toRealPath();
            Path data = dataDir(realRoot);
            if (requireDataLink && data.equals(realRoot)) {
                throw new SourceException("host directory " + root + " lost its ..data link (is it being removed?)");
            }
            List<VolumeFile> files = new ArrayList<>();
            Set<Path> watchDirs = new HashSet<>();
            watchDirs.add(root);
            if (source.projectsAllFiles()) {
                boolean kubeletLayout = !data.equals(realRoot);
                walk(realRoot, data, data, defaultMode, files, kubeletLayout ? null : watchDirs);
            } else {
                for (KeyItem item : source.items()) {
                    Path file = data.resolve(item.key());
                    FileMode mode = item.mode() == null ? defaultMode : item.mode();
                    Path real = regularFileInside(realRoot, file, "key '" + item.key() + "'");
                    files.add(new VolumeFile(item.path(), mode, new FileContent.HostFile(real, limits.maxFileBytes())));
                    checkCount(files, root);
                    if (data.equals(realRoot)) {
                        watchDirs.add(file.getParent()); // a plain directory changes where the file is
                    }
                }
            }
            return new Listing(files, watchDirs, !data.equals(realRoot));
        } catch (NoSuchFileException e) {
            throw new SourceException("host directory " + root + " changed while it was read (" + e.getFile() + " vanished)", e);
        } catch (IOException e) {
            throw new SourceException("host directory " + root + " could not be read: " + e, e);
        }
    }

    /** {@code root/..data}'s target when it is the kubelet layout, else {@code root}. */
    private static Path dataDir(Path realRoot) throws IOException, SourceException {
        Path link = realRoot.resolve("..data");
        if (!Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
            try (DirectoryStream<Path> internals = Files.newDirectoryStream(realRoot,
                    p -> KUBELET_INTERNAL.matcher(p.getFileName().toString()).matches())) {
                if (internals.iterator().hasNext()) {
                    // not a plain directory: the kubelet is creating or removing it; read it once ..data is there
                    throw new SourceException("host directory " + realRoot
                            + " has kubelet-style '..' entries but no ..data (being written or removed)");
                }
            }
            return realRoot;
        }
        Path data = link.toRealPath();
        if (!data.startsWith(realRoot) || data.equals(realRoot)) {
            throw new SourceException("host directory " + realRoot + ": ..data points outside the directory (to " + data + ")");
        }
        if (!Files.isDirectory(data)) {
            throw new SourceException("host directory " + realRoot + ": ..data does not lead to a directory");
        }
        return data;
    }

    private void walk(Path realRoot, Path data, Path dir, FileMode mode, List<VolumeFile> out, Set<Path> watchDirs)
            throws IOException, SourceException {
        if (watchDirs != null) {
            watchDirs.add(dir);
        }
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            stream.forEach(entries::add);
        }
        entries.sort(null);
        for (Path entry : entries) {
            String relative = data.relativize(entry).toString();
            if (dir.equals(data) && entry.getFileName().toString().startsWith("..")) {
                continue; // kubelet internals (..data, ..2026_..., ..data_tmp) and our own reserved names
            }
            BasicFileAttributes attrs = Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (attrs.isDirectory()) {
                walk(realRoot, data, entry, mode, out, watchDirs);
                continue;
            }
            if (CleanRelativePath.problem(relative).isPresent()) {
                throw new SourceException("host directory " + realRoot + ": file name '" + relative + "' "
                        + CleanRelativePath.problem(relative).get());
            }
            Path real = regularFileInside(realRoot, entry, "'" + relative + "'");
            out.add(new VolumeFile(relative, mode, new FileContent.HostFile(real, limits.maxFileBytes())));
            checkCount(out, realRoot);
        }
    }

    /** Resolves {@code file} to a regular file inside {@code realRoot} of acceptable size, or says why not. */
    private Path regularFileInside(Path realRoot, Path file, String what) throws IOException, SourceException {
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new SourceException("host directory " + realRoot + ": " + what + " does not exist");
        }
        Path real = file;
        if (attrs.isSymbolicLink()) {
            try {
                real = file.toRealPath();
            } catch (NoSuchFileException e) {
                throw new SourceException("host directory " + realRoot + ": " + what + " is a dangling symlink");
            }
            if (!real.startsWith(realRoot)) {
                throw new SourceException("host directory " + realRoot + ": " + what + " is a symlink to " + real
                        + ", outside the source directory");
            }
            attrs = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        }
        if (!attrs.isRegularFile()) {
            throw new SourceException("host directory " + realRoot + ": " + what + " is " + kind(attrs) + ", not a regular file");
        }
        if (attrs.size() > limits.maxFileBytes()) {
            throw new SourceException("host directory " + realRoot + ": " + what + " has " + attrs.size()
                    + " bytes, more than the limit of " + limits.maxFileBytes());
        }
        return real;
    }

    private void checkCount(List<VolumeFile> files, Path root) throws SourceException {
        if (files.size() > limits.maxFiles()) {
            throw new SourceException("host directory " + root + " has more than " + limits.maxFiles() + " files");
        }
    }

    private static String kind(BasicFileAttributes attrs) {
        if (attrs.isDirectory()) {
            return "a directory";
        }
        if (attrs.isSymbolicLink()) {
            return "a symlink";
        }
        return attrs.isOther() ? "a FIFO, socket or device" : "not a regular file";
    }
}
