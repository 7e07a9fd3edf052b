package dev.ateom.snapshot;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Extracts a tar archive into a directory that appears only when complete: everything goes into a
 * fresh sibling temp dir, which is renamed to the target at the end (or exchanged with it), and is
 * deleted on any failure. Entries that could escape the tree or create special files are refused
 * with the entry named.
 * <p>
 * Everything is created relative to directory descriptors ({@link DirectoryChain}) with byte names,
 * never by path: only one name's length limits the tree, and no name is decoded. The filesystem is
 * the record of what was extracted (the temp dir is new and only this code writes into it): a name
 * that exists already is a collision, a parent that cannot be opened as a directory without
 * following a symlink is refused. So nothing is kept per entry and memory stays bounded whatever the
 * archive holds. A directory's mode and mtime are set when the walk leaves it (children change its
 * mtime); an archive that comes back into a directory it left (ours never does) may leave that
 * directory's mtime at extraction time.
 */
final class SafeExtractor {
    private static final System.Logger LOG = System.getLogger(SafeExtractor.class.getName());
    private static final int BUFFER = 1 << 20;
    /** Temp trees are named {@code .<target name>.extract-<random>} beside the target. */
    static final String TEMP_INFIX = ".extract-";
    private static final long PROGRESS_EVERY_BYTES = 16L << 20;
    /** Directories an archive implies without listing them (ours never does) get tar's default mode. */
    private static final int IMPLICIT_DIRECTORY_MODE = 0755;

    private record Attributes(int mode, long uid, long gid, long mtimeSeconds, int mtimeNanos) {
        static Attributes of(TarEntry entry) {
            long[] mtime = ArchiveFormat.mtime(entry);
            return new Attributes(entry.mode() & 07777, entry.uid(), entry.gid(), mtime[0], (int) mtime[1]);
        }

        void applyTo(int fd) throws IOException {
            At.setOwnerModeAndMtime(fd, uid, gid, mode, mtimeSeconds, mtimeNanos);
        }
    }

    /** Per open directory: the attributes its own entry asked for, set when the walk leaves it. */
    private static final class Pending {
        Attributes attributes;

        Pending(Attributes attributes) {
            this.attributes = attributes;
        }
    }

    private static final DirectoryChain.Leaving<Pending> APPLY = (fd, pending) -> {
        if (pending.attributes != null) {
            pending.attributes.applyTo(fd);
        }
    };

    private final ExtractOptions options;
    /** Grown to the largest entry copied so far, up to {@code BUFFER}: a durable dir of small files needs no 1 MiB. */
    private byte[] buffer = new byte[0];
    private DirectoryChain<Pending> chain;
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
        boolean targetExists = Files.exists(absoluteTarget, LinkOption.NOFOLLOW_LINKS);
        if (targetExists && !options.replaceExisting()) {
            throw new FileAlreadyExistsException(absoluteTarget.toString(), null, "extraction target exists");
        }
        if (targetExists && !Files.isDirectory(absoluteTarget, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("extraction target " + absoluteTarget + " exists and is not a directory");
        }
        Path tree = parent.resolve("." + absoluteTarget.getFileName() + TEMP_INFIX + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        Files.createDirectory(tree);
        boolean done = false;
        try {
            try (TarInput in = ArchiveReader.open(archive);
                 DirectoryChain<Pending> walk = new DirectoryChain<>(At.openDirectory(tree), new Pending(null));
                 ParallelFileWriter parallel = new ParallelFileWriter()) {
                chain = walk;
                writers = parallel;
                TarEntry entry;
                while ((entry = in.next()) != null) {
                    if (entries == options.maxEntries()) {
                        throw new UnsafeArchiveEntryException(ByteNames.display(entry.name()),
                                "the archive holds more than the " + options.maxEntries() + " entries its manifest lists");
                    }
                    extractEntry(entry, in);
                    entries++;
                    options.progress().onProgress(contentBytes, entries);
                }
                writers.awaitAll();
                while (chain.depth() > 0) {
                    chain.pop(APPLY);
                }
                APPLY.leave(chain.fd(), chain.state());
                if (options.syncToDisk()) {
                    NativeFile.adopt(chain.fd(), tree.toString()).syncFilesystem(); // the chain closes the descriptor
                }
            }
            moveIntoPlace(tree, absoluteTarget, targetExists);
            done = true;
        } finally {
            if (!done) {
                TreeDeleter.delete(tree);
            }
        }
        return new ArchiveSummary(entries, contentBytes, 0);
    }

    private static void moveIntoPlace(Path tree, Path target, boolean targetExists) throws IOException {
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

    private void extractEntry(TarEntry entry, TarInput in) throws IOException {
        String raw = ByteNames.display(entry.name());
        EntryName name = EntryName.parse(entry.name());
        boolean directory = entry.isDirectory();
        if (name.isRoot()) {
            if (!directory) {
                throw new UnsafeArchiveEntryException(raw, "the archive root must be a directory");
            }
            while (chain.depth() > 0) {
                chain.pop(APPLY);
            }
            applyXattrs(chain.fd(), entry);
            chain.state().attributes = Attributes.of(entry);
            return;
        }
        enterParent(name, raw);
        int parentFd = chain.fd();
        byte[] last = name.last();
        if (directory) {
            makeDirectory(parentFd, last, name, raw);
            int fd = At.openDirectory(parentFd, last);
            try {
                applyXattrs(fd, entry);
            } catch (IOException | RuntimeException e) {
                At.close(fd);
                throw e;
            }
            chain.push(last, fd, new Pending(Attributes.of(entry)));
            return;
        }
        switch (entry.type()) {
            case TarEntry.FILE, TarEntry.OLD_FILE, TarEntry.CONTIGUOUS -> writeRegular(entry, in, parentFd, name, raw);
            case TarEntry.SYMLINK -> {
                if (entry.linkName().length == 0) {
                    throw new UnsafeArchiveEntryException(raw, "symlink with an empty target");
                }
                if (indexOfNul(entry.linkName()) >= 0) {
                    throw new UnsafeArchiveEntryException(raw, "NUL in the symlink target");
                }
                try {
                    At.symlink(entry.linkName(), parentFd, last);
                } catch (NativeCallException e) {
                    throw collisionOr(e, name, raw);
                }
                Attributes attributes = Attributes.of(entry);
                At.setSymlinkOwnerAndMtime(parentFd, last, attributes.uid(), attributes.gid(), attributes.mtimeSeconds(), attributes.mtimeNanos());
            }
            case TarEntry.HARD_LINK -> linkHard(entry, parentFd, name, raw);
            case TarEntry.CHAR_DEVICE -> throw new UnsafeArchiveEntryException(raw, "character device node");
            case TarEntry.BLOCK_DEVICE -> throw new UnsafeArchiveEntryException(raw, "block device node");
            case TarEntry.FIFO -> throw new UnsafeArchiveEntryException(raw, "fifo");
            default -> throw new UnsafeArchiveEntryException(raw, "unsupported entry type '" + (char) entry.type() + "'");
        }
    }

    private static int indexOfNul(byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Moves the chain to the entry's parent: leaves directories that are not its ancestors, then opens
     * (or creates, when the archive implies them) the rest. A parent that is a symlink or a file is refused.
     */
    private void enterParent(EntryName name, String raw) throws IOException {
        List<byte[]> segments = name.segments();
        int parentDepth = segments.size() - 1;
        int common = 0;
        while (common < chain.depth() && common < parentDepth && Arrays.equals(chain.name(common + 1), segments.get(common))) {
            common++;
        }
        while (chain.depth() > common) {
            chain.pop(APPLY);
        }
        for (int i = common; i < parentDepth; i++) {
            byte[] segment = segments.get(i);
            int fd;
            try {
                fd = At.openDirectory(chain.fd(), segment);
            } catch (NativeCallException e) {
                if (e.errno() == LibC.ENOENT) {
                    At.mkdir(chain.fd(), segment, IMPLICIT_DIRECTORY_MODE);
                    fd = At.openDirectory(chain.fd(), segment);
                } else if (e.errno() == LibC.ELOOP || e.errno() == LibC.ENOTDIR) {
                    FileStatus status = At.stat(chain.fd(), segment);
                    if (status.type() == FileType.SYMLINK) {
                        throw new UnsafeArchiveEntryException(raw, "would pass through the symlink '" + name.display(i + 1) + "'");
                    }
                    throw new UnsafeArchiveEntryException(raw, "parent '" + name.display(i + 1) + "' is not a directory");
                } else {
                    throw e;
                }
            }
            chain.push(segment, fd, new Pending(null));
        }
    }

    private static void makeDirectory(int parentFd, byte[] last, EntryName name, String raw) throws IOException {
        try {
            At.mkdir(parentFd, last, 0700);
        } catch (NativeCallException e) {
            if (e.errno() != LibC.EEXIST || !At.stat(parentFd, last).isDirectory()) {
                throw collisionOr(e, name, raw);
            }
            // listed again, or implied by an earlier entry: its attributes are set when the walk leaves it
        }
    }

    private static IOException collisionOr(NativeCallException e, EntryName name, String raw) {
        if (e.errno() == LibC.EEXIST) {
            return new UnsafeArchiveEntryException(raw, "collides with an earlier entry named '" + name.display() + "' after normalisation");
        }
        return e;
    }

    /** A hard link to a regular file extracted earlier, found without following symlinks. */
    private void linkHard(TarEntry entry, int parentFd, EntryName name, String raw) throws IOException {
        EntryName target;
        try {
            target = EntryName.parse(entry.linkName());
        } catch (UnsafeArchiveEntryException e) {
            throw new UnsafeArchiveEntryException(raw, "hard link target '" + ByteNames.display(entry.linkName()) + "': " + e.getMessage());
        }
        UnsafeArchiveEntryException notExtracted = new UnsafeArchiveEntryException(raw, "hard link target '"
                + ByteNames.display(entry.linkName()) + "' is not a regular file extracted earlier");
        if (target.isRoot()) {
            throw notExtracted;
        }
        int dirFd = chain.rootFd();
        try {
            for (int i = 0; i < target.segments().size() - 1; i++) {
                int next;
                try {
                    next = At.openDirectory(dirFd, target.segments().get(i));
                } catch (NativeCallException e) {
                    throw notExtracted;
                }
                if (dirFd != chain.rootFd()) {
                    At.close(dirFd);
                }
                dirFd = next;
            }
            FileStatus status;
            try {
                status = At.stat(dirFd, target.last());
            } catch (NativeCallException e) {
                throw notExtracted;
            }
            if (!status.isRegularFile()) {
                throw notExtracted;
            }
            try {
                At.link(dirFd, target.last(), parentFd, name.last());
            } catch (NativeCallException e) {
                throw collisionOr(e, name, raw);
            }
        } finally {
            if (dirFd != chain.rootFd()) {
                At.close(dirFd);
            }
        }
    }

    /**
     * One descriptor for content, owner, mode and mtime: the per-file cost dominates trees of small
     * files. The file is created here (so a collision is found in archive order) and handed with its
     * descriptor to the writer threads. Of a plain archive every file goes as regions of the archive file
     * that the writer copies inside the kernel, so this thread, which creates every file, copies no
     * content at all. Of a compressed archive a small dense file goes with its content read here, and
     * big and sparse files are streamed here.
     */
    private void writeRegular(TarEntry entry, TarInput in, int parentFd, EntryName name, String raw) throws IOException {
        Map<String, byte[]> extensions = entry.extensions();
        byte[] map = extensions.get(ArchiveFormat.SPARSE_MAP);
        long size = entry.size();
        int fd;
        try {
            fd = At.createFile(parentFd, name.last());
        } catch (NativeCallException e) {
            throw collisionOr(e, name, raw);
        }
        CreatedFile file;
        List<Extent> extents;
        try {
            long realSize = map == null ? size : parseRealSize(raw, extensions.get(ArchiveFormat.SPARSE_REALSIZE));
            extents = map == null ? List.of(new Extent(0, size))
                    : ArchiveFormat.decodeMap(raw, new String(map, StandardCharsets.US_ASCII), realSize, size);
            file = new CreatedFile(NativeFile.adopt(fd, raw), fd, raw, entry, Attributes.of(entry), map == null ? -1 : realSize);
        } catch (IOException | RuntimeException e) {
            At.close(fd);
            throw e;
        }
        if (in.hasRegions()) {
            submitRegions(in, file, extents);
        } else if (map == null && size <= ParallelFileWriter.MAX_FILE_BYTES) {
            submitContent(in, file);
        } else {
            try (NativeFile out = file.out()) {
                for (Extent extent : extents) {
                    copy(in.content(), out, extent.offset(), extent.length(), raw);
                }
                file.finish();
            }
        }
    }

    /** The file's extents as regions of the archive file, copied by a writer thread. */
    private void submitRegions(TarInput in, CreatedFile file, List<Extent> extents) throws IOException {
        List<FileRegion> regions = new ArrayList<>(extents.size());
        try {
            for (Extent extent : extents) {
                regions.add(in.contentRegion(extent.length()));
            }
        } catch (IOException | RuntimeException e) {
            file.out().close();
            throw e;
        }
        countContent(file.entry().size());
        writers.submit(file.raw(), 0, () -> {
            for (int i = 0; i < regions.size(); i++) {
                file.out().copyFrom(regions.get(i), extents.get(i).offset());
            }
            file.finish();
        }, file.out()::close);
    }

    /** A small dense file's content, read here and written by a writer thread. */
    private void submitContent(TarInput in, CreatedFile file) throws IOException {
        long size = file.entry().size();
        byte[] data;
        try {
            data = in.content().readNBytes((int) size);
            if (data.length != size) {
                throw new IOException("archive entry '" + file.raw() + "' ended after " + data.length + " of " + size + " bytes");
            }
        } catch (IOException | RuntimeException e) {
            file.out().close();
            throw e;
        }
        countContent(data.length);
        writers.submit(file.raw(), data.length, () -> {
            file.out().writeFully(data, data.length, 0);
            file.finish();
        }, file.out()::close);
    }

    /**
     * A regular file created here, waiting for its content; {@code realSize} is a sparse file's length
     * (its tail after the last extent becomes a hole), -1 for a dense one.
     */
    private record CreatedFile(NativeFile out, int fd, String raw, TarEntry entry, Attributes attributes, long realSize) {
        /** After the content: the sparse tail, then owner, mode, mtime and xattrs. */
        void finish() throws IOException {
            if (realSize >= 0) {
                out.truncate(realSize);
            }
            attributes.applyTo(fd);
            applyXattrs(fd, entry);
        }
    }

    private static long parseRealSize(String raw, byte[] value) throws UnsafeArchiveEntryException {
        String text = value == null ? "" : new String(value, StandardCharsets.US_ASCII);
        try {
            long size = Long.parseLong(text);
            if (size < 0) {
                throw new NumberFormatException("negative");
            }
            return size;
        } catch (NumberFormatException e) {
            throw new UnsafeArchiveEntryException(raw, "sparse entry with a bad real size '" + text + "'");
        }
    }

    private void copy(InputStream in, NativeFile out, long position, long length, String raw) throws IOException {
        if (buffer.length < Math.min(length, BUFFER)) buffer = new byte[ReadBufferSize.forContent(length, BUFFER)];
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

    private static void applyXattrs(int fd, TarEntry entry) throws IOException {
        if (entry.extensions().isEmpty()) {
            return;
        }
        for (Map.Entry<String, byte[]> record : entry.extensions().entrySet()) {
            Optional<Map.Entry<byte[], byte[]>> xattr = ArchiveFormat.decodeXattr(record.getKey(), record.getValue());
            if (xattr.isEmpty()) {
                continue;
            }
            byte[] name = xattr.get().getKey();
            if (!ByteNames.display(name).startsWith("user.")) {
                LOG.log(Level.WARNING, "not restored: xattr {0} of {1} (only user.* xattrs are restored)",
                        ByteNames.display(name), ByteNames.display(entry.name()));
                continue;
            }
            At.setXattr(fd, name, xattr.get().getValue());
        }
    }
}
