package dev.ateom.snapshot;

import com.sun.jna.LastErrorException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorOutputStream;

/** Writes a directory tree into a tar archive; one instance per archive. Streaming: one buffer of content in memory. */
final class DurableArchiveWriter {
    private static final System.Logger LOG = System.getLogger(DurableArchiveWriter.class.getName());
    private static final LinkOption[] NO_FOLLOW = {LinkOption.NOFOLLOW_LINKS};
    private static final String ATTRIBUTES = "unix:mode,uid,gid,ino,dev,nlink,size,lastModifiedTime";
    private static final int BUFFER = 1 << 20;
    /** Smaller files are stored dense: checking their extents costs more than their holes save. */
    private static final long SPARSE_CHECK_MIN_SIZE = 64 * 1024;
    private static final long PROGRESS_EVERY_BYTES = 16L << 20;

    private record InodeKey(Object dev, Object ino) {
    }

    private final Path root;
    private final ArchiveProgress progress;
    private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
    private final Map<InodeKey, String> firstNameOfInode = new HashMap<>();
    private TarArchiveOutputStream tar;
    private long entries;
    private long contentBytes;
    private long skipped;
    private long nextProgressAt = PROGRESS_EVERY_BYTES;

    DurableArchiveWriter(Path root, ArchiveProgress progress) {
        this.root = root;
        this.progress = progress;
    }

    ArchiveSummary write(Path archive, ArchiveCompression compression) throws IOException {
        if (!Files.isDirectory(root, NO_FOLLOW)) {
            throw new IOException("durable share root " + root + " is not a directory");
        }
        boolean done = false;
        try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            OutputStream out = new BufferedOutputStream(Channels.newOutputStream(channel), BUFFER);
            if (compression == ArchiveCompression.ZSTD) {
                out = new ZstdCompressorOutputStream(out);
            }
            try (TarArchiveOutputStream tarOut = new TarArchiveOutputStream(out, "UTF-8")) {
                tar = tarOut;
                tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
                tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
                tar.setAddPaxHeadersForNonAsciiNames(true);
                addDirectory(root, "./");
                tar.finish();
            }
            done = true;
        } finally {
            if (!done) {
                Files.deleteIfExists(archive);
            }
        }
        Fsync.file(archive); // closing the tar stream closed the channel
        progress.onProgress(contentBytes, entries);
        return new ArchiveSummary(entries, contentBytes, skipped);
    }

    private void addDirectory(Path dir, String name) throws IOException {
        Map<String, Object> attributes = Files.readAttributes(dir, ATTRIBUTES, NO_FOLLOW);
        TarArchiveEntry entry = new TarArchiveEntry(name, TarConstants.LF_DIR);
        describe(entry, dir, attributes, true);
        tar.putArchiveEntry(entry);
        tar.closeArchiveEntry();
        counted();
        String prefix = name.equals("./") ? "" : name;
        for (Path child : sortedChildren(dir)) {
            add(child, prefix + child.getFileName().toString());
        }
    }

    private static List<Path> sortedChildren(Path dir) throws IOException {
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            stream.forEach(children::add);
        }
        children.sort(null);
        return children;
    }

    private void add(Path path, String name) throws IOException {
        Map<String, Object> attributes = Files.readAttributes(path, ATTRIBUTES, NO_FOLLOW);
        int mode = (Integer) attributes.get("mode");
        switch (mode & FileType.MASK) {
            case FileType.DIRECTORY -> addDirectory(path, name + "/");
            case FileType.SYMLINK -> addSymlink(path, name, attributes);
            case FileType.REGULAR -> addRegular(path, name, attributes);
            default -> {
                skipped++;
                LOG.log(Level.WARNING, "not archived: {0} is a {1} (tar extraction would refuse it)", path, FileType.describe(mode));
            }
        }
    }

    private void addSymlink(Path path, String name, Map<String, Object> attributes) throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(name, TarConstants.LF_SYMLINK);
        entry.setLinkName(Files.readSymbolicLink(path).toString());
        describe(entry, path, attributes, false);
        tar.putArchiveEntry(entry);
        tar.closeArchiveEntry();
        counted();
    }

    private void addRegular(Path path, String name, Map<String, Object> attributes) throws IOException {
        if ((Integer) attributes.get("nlink") > 1) {
            InodeKey key = new InodeKey(attributes.get("dev"), attributes.get("ino"));
            String first = firstNameOfInode.putIfAbsent(key, name);
            if (first != null) {
                TarArchiveEntry link = new TarArchiveEntry(name, TarConstants.LF_LINK);
                link.setLinkName(first);
                describe(link, path, attributes, false);
                tar.putArchiveEntry(link);
                tar.closeArchiveEntry();
                counted();
                return;
            }
        }
        long size = (Long) attributes.get("size");
        TarArchiveEntry entry = new TarArchiveEntry(name);
        describe(entry, path, attributes, true);
        try (FileChannel in = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            List<Extent> extents = size >= SPARSE_CHECK_MIN_SIZE ? dataExtents(path) : List.of(new Extent(0, size));
            long dataBytes = DiskUsage.allocated(extents);
            if (dataBytes < size) {
                entry.addPaxHeader(ArchiveFormat.SPARSE_REALSIZE, Long.toString(size));
                entry.addPaxHeader(ArchiveFormat.SPARSE_MAP, ArchiveFormat.encodeMap(extents));
            } else {
                extents = List.of(new Extent(0, size));
            }
            entry.setSize(DiskUsage.allocated(extents));
            tar.putArchiveEntry(entry);
            for (Extent extent : extents) {
                copy(in, extent, path);
            }
            tar.closeArchiveEntry();
        }
        counted();
    }

    private static List<Extent> dataExtents(Path path) throws IOException {
        try (NativeFile file = NativeFile.openReadOnly(path)) {
            return file.dataExtents();
        }
    }

    private void copy(FileChannel in, Extent extent, Path path) throws IOException {
        long position = extent.offset();
        while (position < extent.end()) {
            buffer.clear().limit((int) Math.min(BUFFER, extent.end() - position));
            int read = in.read(buffer, position);
            if (read < 0) {
                throw new IOException(path + " shrank while being archived (ended at " + position + ", expected " + extent.end() + ")");
            }
            tar.write(buffer.array(), 0, read);
            position += read;
            contentBytes += read;
            if (contentBytes >= nextProgressAt) {
                nextProgressAt = contentBytes + PROGRESS_EVERY_BYTES;
                progress.onProgress(contentBytes, entries);
            }
        }
    }

    private void describe(TarArchiveEntry entry, Path path, Map<String, Object> attributes, boolean withXattrs) throws IOException {
        int mode = (Integer) attributes.get("mode");
        entry.setMode(mode);
        entry.setUserId(Integer.toUnsignedLong((Integer) attributes.get("uid")));
        entry.setGroupId(Integer.toUnsignedLong((Integer) attributes.get("gid")));
        entry.setUserName("");
        entry.setGroupName("");
        FileTime mtime = (FileTime) attributes.get("lastModifiedTime");
        entry.setLastModifiedTime(mtime);
        ArchiveFormat.exactMtime(mtime).ifPresent(exact -> entry.addPaxHeader(ArchiveFormat.EXACT_MTIME, exact));
        if (withXattrs) {
            addXattrs(entry, path);
        }
    }

    private static void addXattrs(TarArchiveEntry entry, Path path) throws IOException {
        if (!hasXattrs(path)) {
            return;
        }
        UserDefinedFileAttributeView view = Files.getFileAttributeView(path, UserDefinedFileAttributeView.class, NO_FOLLOW);
        if (view == null) {
            return;
        }
        List<String> names;
        try {
            names = view.list();
        } catch (UnsupportedOperationException | FileSystemException e) {
            return; // filesystem without user xattrs
        }
        for (String name : names) {
            ByteBuffer value = ByteBuffer.allocate(view.size(name));
            view.read(name, value);
            Map.Entry<String, String> header = ArchiveFormat.encodeXattr("user." + name, value.array());
            entry.addPaxHeader(header.getKey(), header.getValue());
        }
    }

    /** One path-based syscall; the JDK's view opens the file just to list nothing (most files). */
    private static boolean hasXattrs(Path path) {
        try {
            return LibC.llistxattr(path.toString(), null, 0) > 0;
        } catch (LastErrorException e) {
            return false; // ENOTSUP: the filesystem has no xattrs
        }
    }

    private void counted() {
        entries++;
        progress.onProgress(contentBytes, entries);
    }
}
