package dev.ateom.microvm.systeminfo.volume;

import dev.ateom.snapshot.TreeDeleter;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotLinkException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes generations of one volume directory. Layout:
 * <pre>
 *   &lt;volume&gt;/..data/           real files of the current generation
 *   &lt;volume&gt;/..gen-&lt;n&gt;/         earlier generations, kept at names that never change
 *   &lt;volume&gt;/&lt;name&gt; -&gt; ..data/&lt;name&gt;  one relative symlink per top-level name
 * </pre>
 * A new generation is staged at a fresh {@code ..gen-<n>} and swapped with {@code ..data} by
 * one {@code renameat2(RENAME_EXCHANGE)}: {@code ..data} is never absent, each generation
 * directory is immutable once visible, and the previous generation stays at the staging name.
 * The guest's find-paths restore re-opens every inode at the path it had at save time, so a
 * held descriptor points into {@code ..data} or a {@code ..gen-<n>}; a saved commit rewrites
 * every one of them with the newest content (the same exchange, at each retained name).
 * Never follows a symlink when writing. Not thread-safe: one writer per volume at a time.
 */
public final class VolumeWriter {
    public static final String DATA_DIR = "..data";
    public static final String GENERATION_PREFIX = "..gen-";
    private static final Pattern GENERATION = Pattern.compile(Pattern.quote(GENERATION_PREFIX) + "(\\d{1,18})");
    private static final String LINK_TEMP = "..link-tmp";
    private static final System.Logger LOG = System.getLogger(VolumeWriter.class.getName());

    private final Path volumeDir;
    private final Ownership ownership;
    private final int retainedGenerations;
    private final String label;

    /**
     * @param retainedGenerations earlier generations kept beside {@code ..data} (at least 1): a
     *     descriptor into one of them reads the newest content after the next resume
     * @param label names the sandbox and volume in logs and errors
     */
    public VolumeWriter(Path volumeDir, Ownership ownership, int retainedGenerations, String label) {
        if (retainedGenerations < 1) {
            throw new IllegalArgumentException("retainedGenerations must be at least 1, was " + retainedGenerations);
        }
        this.volumeDir = volumeDir;
        this.ownership = ownership;
        this.retainedGenerations = retainedGenerations;
        this.label = label;
    }

    public Path volumeDir() {
        return volumeDir;
    }

    public Path dataDir() {
        return volumeDir.resolve(DATA_DIR);
    }

    /**
     * Commits a generation while the guest runs and may reference anything already visible:
     * nothing it can reference is deleted or replaced, except generations older than the
     * retained ones and top-level names the new content no longer has.
     */
    public void commitWhileRunning(VolumeContent content) throws IOException {
        ensureVolumeDir();
        List<Path> generations = generationsNewestFirst();
        Path stage = stageGeneration(content, generations);
        try {
            linkTopLevelNames(content);
            swapIntoData(stage);
        } catch (IOException | RuntimeException e) {
            deleteQuietly(stage);
            throw e;
        }
        unlinkNamesOtherThan(content);
        // the stage now holds the previous generation: it counts among the retained ones
        List<Path> retained = new ArrayList<>(generations);
        if (!retained.contains(stage) && Files.isDirectory(stage, LinkOption.NOFOLLOW_LINKS)) {
            retained.addFirst(stage);
        }
        for (Path old : retained.subList(Math.min(retainedGenerations, retained.size()), retained.size())) {
            deleteTree(old);
        }
    }

    /**
     * Commits a generation while the VM is saved: every retained generation directory (and
     * {@code ..data}) is replaced at its own name by the newest content, so descriptors the
     * guest held anywhere in the volume read it after the restore; then the oldest are dropped.
     */
    public void commitWhileSaved(VolumeContent content) throws IOException {
        ensureVolumeDir();
        List<Path> generations = generationsNewestFirst();
        List<Path> kept = generations.subList(0, Math.min(retainedGenerations, generations.size()));
        // older generations first, ..data last: content copied from ..data stays readable until the end
        List<Path> targets = new ArrayList<>(kept.reversed());
        for (Path target : targets) {
            replaceAt(target, content);
        }
        linkTopLevelNames(content);
        if (Files.isDirectory(dataDir(), LinkOption.NOFOLLOW_LINKS)) {
            replaceAt(dataDir(), content);
        } else {
            swapIntoData(stageGeneration(content));
        }
        unlinkNamesOtherThan(content);
        for (Path old : generations.subList(kept.size(), generations.size())) {
            deleteTree(old);
        }
    }

    /**
     * Whether the volume holds exactly {@code content} (whose digest is {@code expectedDigest}):
     * {@code ..data} matches and every top-level name is the right symlink.
     */
    public boolean holds(VolumeContent content, String expectedDigest) throws IOException {
        if (!Files.isDirectory(dataDir(), LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        Set<String> names = new HashSet<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(volumeDir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.startsWith("..")) {
                    continue;
                }
                if (!linksToData(entry, name)) {
                    return false;
                }
                names.add(name);
            }
        }
        if (!names.equals(content.topLevelNames())) {
            return false;
        }
        return ContentDigest.ofGeneration(dataDir()).map(expectedDigest::equals).orElse(false);
    }

    /** Removes the whole volume directory (a failed create); symlinks are removed, never followed. */
    public void remove() throws IOException {
        deleteTree(volumeDir);
    }

    /** The retained earlier generations, newest first (not including {@code ..data}). */
    public List<Path> generationsNewestFirst() throws IOException {
        if (!Files.isDirectory(volumeDir, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        List<Path> generations = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(volumeDir, GENERATION_PREFIX + "*")) {
            for (Path entry : entries) {
                if (generationNumber(entry).isPresent()) {
                    generations.add(entry);
                }
            }
        }
        generations.sort(Comparator.comparingLong((Path p) -> generationNumber(p).orElseThrow()).reversed());
        return generations;
    }

    private static Optional<Long> generationNumber(Path dir) {
        Matcher m = GENERATION.matcher(dir.getFileName().toString());
        return m.matches() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
    }

    private void ensureVolumeDir() throws IOException {
        if (Files.isDirectory(volumeDir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.createDirectories(volumeDir.getParent());
        try {
            Files.createDirectory(volumeDir);
            Files.setAttribute(volumeDir, "unix:mode", 0755, LinkOption.NOFOLLOW_LINKS);
            ownership.apply(volumeDir);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(volumeDir, LinkOption.NOFOLLOW_LINKS)) {
                throw new IOException(label + ": " + volumeDir + " exists and is not a directory (symlinks are never followed)");
            }
        }
    }

    /** Writes {@code content} into a new {@code ..gen-<n>} that nothing references yet. */
    private Path stageGeneration(VolumeContent content) throws IOException {
        return stageGeneration(content, generationsNewestFirst());
    }

    private Path stageGeneration(VolumeContent content, List<Path> generations) throws IOException {
        long next = generations.stream().findFirst().flatMap(VolumeWriter::generationNumber).orElse(0L) + 1;
        Path stage = volumeDir.resolve(GENERATION_PREFIX + next);
        // 0700 until complete: the guest can list the volume, but must not read a half-written generation
        Files.createDirectory(stage, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        try {
            Set<Path> dirs = new HashSet<>();
            for (VolumeFile file : content.files()) {
                writeFile(stage, file, dirs);
            }
            for (Path dir : dirs) {
                Files.setAttribute(dir, "unix:mode", 0755, LinkOption.NOFOLLOW_LINKS);
                ownership.apply(dir);
            }
            ownership.apply(stage);
            Files.setAttribute(stage, "unix:mode", 0755, LinkOption.NOFOLLOW_LINKS);
            return stage;
        } catch (IOException | RuntimeException e) {
            deleteQuietly(stage);
            throw e;
        }
    }

    private void writeFile(Path stage, VolumeFile file, Set<Path> dirs) throws IOException {
        Path target = stage.resolve(file.path());
        Path dir = stage;
        for (Path segment : stage.relativize(target.getParent() == null ? stage : target.getParent())) {
            if (segment.toString().isEmpty()) {
                break;
            }
            dir = dir.resolve(segment);
            if (dirs.add(dir)) {
                Files.createDirectory(dir);
            }
        }
        try (InputStream in = FileContentStreams.open(file.content());
             OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                     LinkOption.NOFOLLOW_LINKS)) {
            in.transferTo(out);
        } catch (IOException e) {
            throw new IOException(label + ": writing '" + file.path() + "' failed: " + e.getMessage(), e);
        }
        Files.setAttribute(target, "unix:mode", file.mode().bits(), LinkOption.NOFOLLOW_LINKS);
        ownership.apply(target);
    }

    private void swapIntoData(Path stage) throws IOException {
        if (Files.exists(dataDir(), LinkOption.NOFOLLOW_LINKS)) {
            Renameat2.exchange(stage, dataDir());
        } else {
            Renameat2.renameNoReplace(stage, dataDir());
        }
    }

    /** Replaces the directory at {@code target} by {@code content} in one exchange, then drops the old copy. */
    private void replaceAt(Path target, VolumeContent content) throws IOException {
        Path stage = stageGeneration(content);
        try {
            Renameat2.exchange(stage, target);
        } catch (IOException e) {
            deleteQuietly(stage);
            throw e;
        }
        deleteTree(stage);
    }

    private static boolean linksToData(Path link, String name) throws IOException {
        try {
            return Files.readSymbolicLink(link).toString().equals(linkTarget(name));
        } catch (NoSuchFileException | NotLinkException e) {
            return false;
        }
    }

    private static String linkTarget(String name) {
        return DATA_DIR + "/" + name;
    }

    private void linkTopLevelNames(VolumeContent content) throws IOException {
        for (String name : content.topLevelNames()) {
            Path link = volumeDir.resolve(name);
            if (linksToData(link, name)) {
                continue; // untouched: a path present in both generations never disappears
            }
            Optional<BasicFileAttributes> attrs = attributes(link);
            Path temp = volumeDir.resolve(LINK_TEMP);
            Files.deleteIfExists(temp);
            Files.createSymbolicLink(temp, Path.of(linkTarget(name)));
            ownership.apply(temp);
            if (attrs.isPresent() && attrs.get().isDirectory()) {
                deleteTree(link); // not ours: something replaced a link by a directory
            }
            Files.move(temp, link, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    private void unlinkNamesOtherThan(VolumeContent content) throws IOException {
        Set<String> wanted = content.topLevelNames();
        List<Path> stale = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(volumeDir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.startsWith("..") && !wanted.contains(name)) {
                    stale.add(entry);
                }
            }
        }
        for (Path entry : stale) {
            LOG.log(System.Logger.Level.DEBUG, "{0}: removing top-level name {1} that the new generation no longer has",
                    label, entry.getFileName());
            deleteTree(entry);
        }
    }

    private static Optional<BasicFileAttributes> attributes(Path path) throws IOException {
        try {
            return Optional.of(Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** Deletes a file, symlink or directory tree; symlinks are removed, never followed. */
    static void deleteTree(Path root) throws IOException {
        TreeDeleter.delete(root);
    }

    private void deleteQuietly(Path path) {
        try {
            deleteTree(path);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "{0}: could not remove {1}: {2}", label, path, e.getMessage());
        }
    }
}
