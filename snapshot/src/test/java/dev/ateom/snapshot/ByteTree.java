package dev.ateom.snapshot;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * A tree as bytes: every name as the kernel has it (never decoded with the JVM's locale), walked
 * through directory descriptors so depth and path length do not matter. Also builds such trees.
 */
final class ByteTree {
    private ByteTree() {
    }

    /** name (invalid UTF-8 shown as \xNN, which {@link ByteNames#display} keeps unambiguous) -> type, mode, owner, mtime, content. */
    static Map<String, String> describe(Path root) throws IOException {
        Map<String, String> entries = new TreeMap<>();
        int rootFd = At.openDirectory(root);
        entries.put("", describe(At.stat(rootFd), rootFd, null));
        walk(rootFd, new byte[0], entries);
        At.close(rootFd);
        return entries;
    }

    private static void walk(int dirFd, byte[] path, Map<String, String> entries) throws IOException {
        for (At.DirEntry child : At.list(dirFd)) {
            byte[] name = child.name();
            ByteArrayBuilder full = new ByteArrayBuilder();
            full.write(path);
            if (path.length > 0) {
                full.write('/');
            }
            full.write(name);
            FileStatus status = At.stat(dirFd, name);
            if (status.isDirectory()) {
                int fd = At.openDirectory(dirFd, name);
                entries.put(ByteNames.display(full.toByteArray()), describe(status, fd, null));
                walk(fd, full.toByteArray(), entries);
                At.close(fd);
            } else if (status.isRegularFile()) {
                int fd = At.openRegularForReading(dirFd, name);
                entries.put(ByteNames.display(full.toByteArray()), describe(status, fd, null) + " ino-links=" + status.nlink());
                At.close(fd);
            } else {
                byte[] target = At.readLink(dirFd, name, status.size());
                entries.put(ByteNames.display(full.toByteArray()), describe(status, -1, target));
            }
        }
    }

    private static String describe(FileStatus status, int fd, byte[] linkTarget) throws IOException {
        StringBuilder d = new StringBuilder(FileType.describe(status.mode()));
        d.append(" mode=").append(Integer.toOctalString(status.mode() & 07777)).append(" uid=").append(status.uid())
                .append(" gid=").append(status.gid()).append(" mtime=").append(status.mtimeSeconds()).append('.').append(status.mtimeNanos());
        if (linkTarget != null) {
            d.append(" -> ").append(HexFormat.of().formatHex(linkTarget));
        } else if (status.isRegularFile()) {
            d.append(" size=").append(status.size()).append(" sha256=").append(sha256(fd));
        }
        return d.toString();
    }

    private static String sha256(int fd) throws IOException {
        MessageDigest sha = TreeDescription.sha256();
        try (FileChannel channel = FileChannel.open(Path.of("/proc/self/fd/" + fd), StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
            while (channel.read(buffer.clear()) > 0) {
                sha.update(buffer.flip());
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** Creates {@code name} (bytes) under the directory open at {@code dirFd} with {@code content}; returns nothing open. */
    static void file(int dirFd, byte[] name, String content) throws IOException {
        int fd = At.createFile(dirFd, name);
        try (NativeFile out = NativeFile.adopt(fd, ByteNames.display(name))) {
            byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
            out.writeFully(bytes, bytes.length, 0);
        }
    }

    /** Creates the directory {@code name} and returns it open. */
    static int directory(int dirFd, byte[] name) throws IOException {
        At.mkdir(dirFd, name, 0755);
        return At.openDirectory(dirFd, name);
    }

    static byte[] bytes(int... values) {
        byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = (byte) values[i];
        }
        return bytes;
    }

    static byte[] concat(String text, byte[] tail) {
        byte[] head = text.getBytes(StandardCharsets.UTF_8);
        byte[] joined = new byte[head.length + tail.length];
        System.arraycopy(head, 0, joined, 0, head.length);
        System.arraycopy(tail, 0, joined, head.length, tail.length);
        return joined;
    }
}
