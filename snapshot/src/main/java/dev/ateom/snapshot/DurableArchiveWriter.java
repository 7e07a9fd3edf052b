package dev.ateom.snapshot;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorOutputStream;

/**
 * Writes a directory tree into a tar archive; one instance per archive. The walk goes through
 * directory descriptors ({@link DirectoryChain}) and byte names, so neither the depth of the tree,
 * the length of its paths nor the daemon's locale limits what is archived, and every step costs the
 * same at any depth (linear in the tree). Streaming: one buffer of content in memory.
 */
final class DurableArchiveWriter {
    private static final System.Logger LOG = System.getLogger(DurableArchiveWriter.class.getName());
    private static final int BUFFER = 1 << 20;
    /** Smaller files are stored dense: checking their extents costs more than their holes save. */
    private static final long SPARSE_CHECK_MIN_SIZE = 64 * 1024;
    private static final long PROGRESS_EVERY_BYTES = 16L << 20;
    private static final byte[] ROOT_NAME = {'.', '/'};

    private record InodeKey(long dev, long ino) {
    }

    /** A directory being walked: its children in byte order, the next one, and where its entry name ends in {@link #path}. */
    private static final class Walk {
        final List<At.DirEntry> children;
        final int prefixLength;
        int next;

        Walk(List<At.DirEntry> children, int prefixLength) {
            this.children = children;
            this.prefixLength = prefixLength;
        }
    }

    private final Path root;
    private final ArchiveProgress progress;
    private final Map<InodeKey, byte[]> firstNameOfInode = new HashMap<>();
    /** The current directory's entry name ("a/b/"); children's names are written after it. */
    private final ByteArrayBuilder path = new ByteArrayBuilder();
    private TarOutput tar;
    private long entries;
    private long contentBytes;
    private long skipped;
    private long nextProgressAt = PROGRESS_EVERY_BYTES;

    DurableArchiveWriter(Path root, ArchiveProgress progress) {
        this.root = root;
        this.progress = progress;
    }

    ArchiveSummary write(Path archive, ArchiveCompression compression) throws IOException {
        int rootFd;
        try {
            rootFd = At.openDirectory(root);
        } catch (NativeCallException e) {
            throw new IOException("durable share root " + root + " is not a directory: " + e.getMessage(), e);
        }
        boolean done = false;
        try (DirectoryChain<Walk> chain = new DirectoryChain<>(rootFd, new Walk(sortedChildren(rootFd), 0));
             FileChannel channel = FileChannel.open(archive, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            OutputStream zstd = compression == ArchiveCompression.ZSTD
                    ? new ZstdCompressorOutputStream(new BufferedOutputStream(Channels.newOutputStream(channel), BUFFER)) : null;
            WritableByteChannel out = zstd == null ? channel : Channels.newChannel(zstd);
            try (TarOutput tarOut = new TarOutput(out, BUFFER)) {
                tar = tarOut;
                putEntry(ROOT_NAME, TarEntry.DIRECTORY, At.stat(rootFd), TarEntry.NO_LINK, rootFd);
                walk(chain);
                tar.finish();
            }
            if (zstd != null) {
                zstd.close(); // also closes the channel
            } else {
                channel.force(true);
            }
            done = true;
        } finally {
            if (!done) {
                Files.deleteIfExists(archive);
            }
        }
        if (compression == ArchiveCompression.ZSTD) {
            Fsync.file(archive);
        }
        progress.onProgress(contentBytes, entries);
        return new ArchiveSummary(entries, contentBytes, skipped);
    }

    private void walk(DirectoryChain<Walk> chain) throws IOException {
        while (true) {
            Walk walk = chain.state();
            if (walk.next == walk.children.size()) {
                if (chain.depth() == 0) {
                    return;
                }
                chain.pop((fd, state) -> { });
                continue;
            }
            byte[] name = walk.children.get(walk.next++).name();
            path.truncate(walk.prefixLength);
            path.write(name);
            int dirFd = chain.fd();
            FileStatus status = At.stat(dirFd, name);
            switch (status.type()) {
                case FileType.DIRECTORY -> {
                    int fd = At.openDirectory(dirFd, name);
                    try {
                        path.write('/');
                        putEntry(path.toByteArray(), TarEntry.DIRECTORY, status, TarEntry.NO_LINK, fd);
                    } catch (IOException | RuntimeException e) {
                        At.close(fd);
                        throw e;
                    }
                    chain.push(name, fd, new Walk(sortedChildren(fd), path.length()));
                }
                case FileType.SYMLINK -> putEntry(path.toByteArray(), TarEntry.SYMLINK, status, At.readLink(dirFd, name, status.size()), -1);
                case FileType.REGULAR -> addRegular(dirFd, name, status);
                default -> {
                    skipped++;
                    LOG.log(Level.WARNING, "not archived: {0} is a {1} (tar extraction would refuse it)",
                            ByteNames.display(path.toByteArray()), FileType.describe(status.mode()));
                }
            }
        }
    }

    private static List<At.DirEntry> sortedChildren(int dirFd) throws IOException {
        List<At.DirEntry> children = At.list(dirFd);
        children.sort((a, b) -> Arrays.compareUnsigned(a.name(), b.name()));
        return children;
    }

    private void addRegular(int dirFd, byte[] name, FileStatus listed) throws IOException {
        byte[] entryName = path.toByteArray();
        if (listed.nlink() > 1) {
            byte[] first = firstNameOfInode.putIfAbsent(new InodeKey(listed.dev(), listed.ino()), entryName);
            if (first != null) {
                putEntry(entryName, TarEntry.HARD_LINK, listed, first, -1);
                return;
            }
        }
        int fd = At.openRegularForReading(dirFd, name);
        try {
            FileStatus status = At.stat(fd);
            if (!status.isRegularFile() || !status.sameFile(listed)) {
                throw new IOException(ByteNames.display(entryName) + " was replaced while being archived");
            }
            long size = status.size();
            List<Extent> extents = size >= SPARSE_CHECK_MIN_SIZE ? NativeFile.dataExtents(fd, entryName) : List.of(new Extent(0, size));
            Map<String, byte[]> extensions = xattrs(fd);
            long dataBytes = DiskUsage.allocated(extents);
            if (dataBytes < size) {
                extensions.put(ArchiveFormat.SPARSE_REALSIZE, Long.toString(size).getBytes(StandardCharsets.US_ASCII));
                extensions.put(ArchiveFormat.SPARSE_MAP, ArchiveFormat.encodeMap(extents).getBytes(StandardCharsets.US_ASCII));
            } else {
                extents = List.of(new Extent(0, size));
                dataBytes = size;
            }
            tar.putHeader(header(entryName, TarEntry.FILE, status, dataBytes, TarEntry.NO_LINK, extensions));
            String shown = null;
            for (Extent extent : extents) {
                long chunkStart = extent.offset();
                while (chunkStart < extent.end()) {
                    long chunk = Math.min(PROGRESS_EVERY_BYTES, extent.end() - chunkStart);
                    if (shown == null) {
                        shown = ByteNames.display(entryName);
                    }
                    tar.putContent(fd, chunkStart, chunk, shown);
                    chunkStart += chunk;
                    contentBytes += chunk;
                    if (contentBytes >= nextProgressAt) {
                        nextProgressAt = contentBytes + PROGRESS_EVERY_BYTES;
                        progress.onProgress(contentBytes, entries);
                    }
                }
            }
            tar.pad(dataBytes);
        } finally {
            At.close(fd);
        }
        counted();
    }

    /** An entry without data; {@code fd} (or -1) is where its xattrs are read from. */
    private void putEntry(byte[] name, byte type, FileStatus status, byte[] linkName, int fd) throws IOException {
        Map<String, byte[]> extensions = fd >= 0 ? xattrs(fd) : new LinkedHashMap<>();
        tar.putHeader(header(name, type, status, 0, linkName, extensions));
        counted();
    }

    private static TarEntry header(byte[] name, byte type, FileStatus status, long size, byte[] linkName, Map<String, byte[]> extensions) {
        return new TarEntry(name, type, status.mode() & 07777, status.uid(), status.gid(), size, status.mtimeSeconds(),
                status.mtimeNanos(), linkName, extensions);
    }

    private static Map<String, byte[]> xattrs(int fd) throws IOException {
        Map<String, byte[]> extensions = new LinkedHashMap<>();
        for (byte[] name : At.userXattrNames(fd)) {
            Map.Entry<String, byte[]> record = ArchiveFormat.encodeXattr(name, At.getXattr(fd, name));
            extensions.put(record.getKey(), record.getValue());
        }
        return extensions;
    }

    private void counted() {
        entries++;
        progress.onProgress(contentBytes, entries);
    }
}
