package dev.ateom.snapshot;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * Extracts a tar archive into a directory that appears only when complete: everything goes into a
 * fresh sibling temp dir, which is renamed to the target at the end (or exchanged with it), and is
 * deleted on any failure. Entries that could escape the tree or create special files are refused
 * with the entry named; since the temp dir is new and only this code writes into it, tracking what
 * was extracted is enough to know that no parent is a symlink.
 */
final class SafeExtractor {
    private static final System.Logger LOG = System.getLogger(SafeExtractor.class.getName());
    private static final LinkOption[] NO_FOLLOW = {LinkOption.NOFOLLOW_LINKS};
    private static final int BUFFER = 1 << 20;
    /** Temp trees are named {@code .<target name>.extract-<random>} beside the target. */
    static final String TEMP_INFIX = ".extract-";
    private static final long PROGRESS_EVERY_BYTES = 16L << 20;

    private enum Kind { DIRECTORY, IMPLICIT_DIRECTORY, FILE, SYMLINK }

    private record Attributes(int mode, long uid, long gid, FileTime mtime) {
        static Attributes of(TarArchiveEntry entry) {
            return new Attributes(entry.getMode() & 07777, entry.getLongUserId(), entry.getLongGroupId(), ArchiveFormat.mtime(entry));
        }
    }

    private record DeferredDirectory(Path path, Attributes attributes) {
    }

    private final ExtractOptions options;
    private final Map<String, Kind> extracted = new HashMap<>();
    private final List<DeferredDirectory> directories = new ArrayList<>();
    private final byte[] buffer = new byte[BUFFER];
    private Path tree;
    private ParallelFileWriter writers;
    private long entries;
    private long contentBytes;
    private long nextProgressAt = PROGRESS_EVERY_BYTES;

    SafeExtractor(ExtractOptions options) {
        this.options = options;
    }

    ArchiveSummary extract(Path archive, Path target) throws IOException {
        Path absoluteTarget = target.toAbsolutePath().normalize();
        Path parent = absoluteTarget.getParent();
        boolean targetExists = Files.exists(absoluteTarget, NO_FOLLOW);
        if (targetExists && !options.replaceExisting()) {
            throw new FileAlreadyExistsException(absoluteTarget.toString(), null, "extraction target exists");
        }
        if (targetExists && !Files.isDirectory(absoluteTarget, NO_FOLLOW)) {
            throw new IOException("extraction target " + absoluteTarget + " exists and is not a directory");
        }
        tree = parent.resolve("." + absoluteTarget.getFileName() + TEMP_INFIX + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        Files.createDirectory(tree);
        boolean done = false;
        try {
            try (TarArchiveInputStream in = ArchiveReader.open(archive); ParallelFileWriter writers = new ParallelFileWriter()) {
                this.writers = writers;
                TarArchiveEntry entry;
                while ((entry = in.getNextEntry()) != null) {
                    extractEntry(entry, in);
                    entries++;
                    options.progress().onProgress(contentBytes, entries);
                }
                writers.awaitAll(); // before directory mtimes: creating files changes them
            }
            for (int i = directories.size() - 1; i >= 0; i--) {
                applyAttributes(directories.get(i).path(), directories.get(i).attributes(), false);
            }
            if (options.syncToDisk()) {
                try (NativeFile dir = NativeFile.openDirectory(tree)) {
                    dir.syncFilesystem();
                }
            }
            moveIntoPlace(absoluteTarget, targetExists);
            done = true;
        } finally {
            if (!done) {
                TreeDeleter.delete(tree);
            }
        }
        return new ArchiveSummary(entries, contentBytes, 0);
    }

    private void moveIntoPlace(Path target, boolean targetExists) throws IOException {
        if (!targetExists) {
            Files.move(tree, target, StandardCopyOption.ATOMIC_MOVE);
        } else {
            try {
                LibC.renameat2(LibC.AT_FDCWD, tree.toString(), LibC.AT_FDCWD, target.toString(), LibC.RENAME_EXCHANGE);
            } catch (LastErrorException e) {
                throw NativeFile.failure("renameat2(RENAME_EXCHANGE) with " + tree + " of", target, e);
            }
            try {
                TreeDeleter.delete(tree); // the old tree now lives at the temp name
            } catch (IOException e) {
                // the new tree is in place: a leftover old one is garbage, not a failed extraction
                LOG.log(Level.WARNING, "extracted into {0}, but the replaced tree at {1} could not be removed: {2}",
                        target, tree, e.getMessage());
            }
        }
        Fsync.directory(target.getParent());
    }

    private void extractEntry(TarArchiveEntry entry, TarArchiveInputStream in) throws IOException {
        String raw = entry.getName();
        String name = EntryName.normalize(raw);
        byte type = entry.getLinkFlag();
        boolean directory = type == TarConstants.LF_DIR
                || (raw.endsWith("/") && (type == TarConstants.LF_NORMAL || type == TarConstants.LF_OLDNORM));
        if (name.isEmpty()) {
            if (!directory) {
                throw new UnsafeArchiveEntryException(raw, "the archive root must be a directory");
            }
            if (extracted.put("", Kind.DIRECTORY) != null) {
                throw new UnsafeArchiveEntryException(raw, "archive root appears twice");
            }
            applyXattrs(tree, entry);
            directories.add(new DeferredDirectory(tree, Attributes.of(entry)));
            return;
        }
        Kind existing = extracted.get(name);
        if (existing != null && !(existing == Kind.IMPLICIT_DIRECTORY && directory)) {
            throw new UnsafeArchiveEntryException(raw, "collides with an earlier entry named '" + name + "' after normalisation");
        }
        ensureParents(raw, name);
        Path path = tree.resolve(name);
        if (directory) {
            if (existing == null) {
                Files.createDirectory(path);
            }
            extracted.put(name, Kind.DIRECTORY);
            applyXattrs(path, entry);
            directories.add(new DeferredDirectory(path, Attributes.of(entry)));
            return;
        }
        switch (type) {
            case TarConstants.LF_NORMAL, TarConstants.LF_OLDNORM, TarConstants.LF_CONTIG, TarConstants.LF_GNUTYPE_SPARSE -> {
                extracted.put(name, Kind.FILE);
                writeRegular(entry, in, name, path, raw);
            }
            case TarConstants.LF_SYMLINK -> {
                if (entry.getLinkName().isEmpty()) {
                    throw new UnsafeArchiveEntryException(raw, "symlink with an empty target");
                }
                Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
                extracted.put(name, Kind.SYMLINK);
                applyAttributes(path, Attributes.of(entry), true);
            }
            case TarConstants.LF_LINK -> {
                String linkTarget = normalizeLinkTarget(raw, entry.getLinkName());
                if (extracted.get(linkTarget) != Kind.FILE) {
                    throw new UnsafeArchiveEntryException(raw, "hard link target '" + entry.getLinkName()
                            + "' is not a regular file extracted earlier");
                }
                writers.awaitFile(linkTarget);
                Files.createLink(path, tree.resolve(linkTarget));
                extracted.put(name, Kind.FILE);
            }
            case TarConstants.LF_CHR -> throw new UnsafeArchiveEntryException(raw, "character device node");
            case TarConstants.LF_BLK -> throw new UnsafeArchiveEntryException(raw, "block device node");
            case TarConstants.LF_FIFO -> throw new UnsafeArchiveEntryException(raw, "fifo");
            default -> throw new UnsafeArchiveEntryException(raw, "unsupported entry type '" + (char) type + "'");
        }
    }

    private static String normalizeLinkTarget(String raw, String linkName) throws UnsafeArchiveEntryException {
        try {
            return EntryName.normalize(linkName);
        } catch (UnsafeArchiveEntryException e) {
            throw new UnsafeArchiveEntryException(raw, "hard link target '" + linkName + "': " + e.getMessage());
        }
    }

    /** Creates missing parents; refuses a parent that is a symlink or a file. */
    private void ensureParents(String raw, String name) throws IOException {
        int slash = -1;
        while ((slash = name.indexOf('/', slash + 1)) >= 0) {
            String ancestor = name.substring(0, slash);
            Kind kind = extracted.get(ancestor);
            if (kind == null) {
                Files.createDirectory(tree.resolve(ancestor));
                extracted.put(ancestor, Kind.IMPLICIT_DIRECTORY);
            } else if (kind == Kind.SYMLINK) {
                throw new UnsafeArchiveEntryException(raw, "would pass through the symlink '" + ancestor + "'");
            } else if (kind == Kind.FILE) {
                throw new UnsafeArchiveEntryException(raw, "parent '" + ancestor + "' is not a directory");
            }
        }
    }

    /**
     * One descriptor for content, owner, mode and mtime: the per-file cost dominates trees of small
     * files. Small dense files are handed to the writer threads with their content; big and sparse
     * ones are streamed here.
     */
    private void writeRegular(TarArchiveEntry entry, TarArchiveInputStream in, String name, Path path, String raw) throws IOException {
        Map<String, String> pax = entry.getExtraPaxHeaders();
        String map = pax.get(ArchiveFormat.SPARSE_MAP);
        Attributes attributes = Attributes.of(entry);
        long size = entry.isSparse() ? entry.getRealSize() : entry.getSize();
        if (map == null && size <= ParallelFileWriter.MAX_FILE_BYTES) {
            byte[] content = in.readNBytes((int) size);
            if (content.length != size) {
                throw new IOException("archive entry '" + raw + "' ended after " + content.length + " of " + size + " bytes");
            }
            countContent(content.length);
            writers.submit(name, content.length, () -> {
                try (NativeFile out = NativeFile.createNew(path)) {
                    out.writeFully(content, content.length, 0);
                    out.setOwnerModeAndMtime(attributes.uid(), attributes.gid(), attributes.mode(), attributes.mtime());
                }
                applyXattrs(path, entry);
            });
            return;
        }
        try (NativeFile out = NativeFile.createNew(path)) {
            if (map == null) {
                copy(in, out, 0, size, raw);
            } else {
                long realSize = parseRealSize(raw, pax.get(ArchiveFormat.SPARSE_REALSIZE));
                for (Extent extent : ArchiveFormat.decodeMap(raw, map, realSize, entry.getSize())) {
                    copy(in, out, extent.offset(), extent.length(), raw);
                }
                out.truncate(realSize); // the tail after the last extent becomes a hole
            }
            out.setOwnerModeAndMtime(attributes.uid(), attributes.gid(), attributes.mode(), attributes.mtime());
        }
        applyXattrs(path, entry);
    }

    private static long parseRealSize(String raw, String value) throws UnsafeArchiveEntryException {
        try {
            long size = Long.parseLong(value == null ? "" : value);
            if (size < 0) {
                throw new NumberFormatException("negative");
            }
            return size;
        } catch (NumberFormatException e) {
            throw new UnsafeArchiveEntryException(raw, "sparse entry with a bad real size '" + value + "'");
        }
    }

    private void copy(TarArchiveInputStream in, NativeFile out, long position, long length, String raw) throws IOException {
        long done = 0;
        while (done < length) {
            int read = in.readNBytes(buffer, 0, (int) Math.min(buffer.length, length - done));
            if (read <= 0) {
                throw new IOException("archive entry '" + raw + "' ended after " + done + " of " + length + " bytes");
            }
            out.writeFully(buffer, read, position + done);
            done += read;
            countContent(read);
        }
    }

    private void countContent(long bytes) {
        contentBytes += bytes;
        if (contentBytes >= nextProgressAt) {
            nextProgressAt = contentBytes + PROGRESS_EVERY_BYTES;
            options.progress().onProgress(contentBytes, entries);
        }
    }

    private static void applyAttributes(Path path, Attributes attributes, boolean symlink) throws IOException {
        // chown before chmod: chown clears setuid/setgid
        Files.setAttribute(path, "unix:uid", (int) attributes.uid(), NO_FOLLOW);
        Files.setAttribute(path, "unix:gid", (int) attributes.gid(), NO_FOLLOW);
        if (!symlink) {
            Files.setAttribute(path, "unix:mode", attributes.mode(), NO_FOLLOW);
        }
        Files.getFileAttributeView(path, BasicFileAttributeView.class, NO_FOLLOW).setTimes(attributes.mtime(), null, null);
    }

    private static void applyXattrs(Path path, TarArchiveEntry entry) throws IOException {
        UserDefinedFileAttributeView view = null;
        for (Map.Entry<String, String> header : entry.getExtraPaxHeaders().entrySet()) {
            Optional<Map.Entry<String, byte[]>> xattr = ArchiveFormat.decodeXattr(header.getKey(), header.getValue());
            if (xattr.isEmpty()) {
                continue;
            }
            String name = xattr.get().getKey();
            if (!name.startsWith("user.")) {
                LOG.log(Level.WARNING, "not restored: xattr {0} of {1} (only user.* xattrs are restored)", name, entry.getName());
                continue;
            }
            if (view == null) {
                view = Files.getFileAttributeView(path, UserDefinedFileAttributeView.class, NO_FOLLOW);
            }
            view.write(name.substring("user.".length()), ByteBuffer.wrap(xattr.get().getValue()));
        }
    }
}
