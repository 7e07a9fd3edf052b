package dev.ateom.snapshot;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/** Everything observable about a tree, for comparing a tree with its extracted copy. */
record TreeDescription(Map<String, String> entries, Set<Set<String>> hardLinkGroups) {
    private static final LinkOption[] NO_FOLLOW = {LinkOption.NOFOLLOW_LINKS};

    static TreeDescription of(Path root) throws IOException {
        Map<String, String> entries = new TreeMap<>();
        Map<Object, Set<String>> byInode = new HashMap<>();
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(root)) {
            paths = new ArrayList<>(walk.toList());
        }
        for (Path path : paths) {
            String name = root.relativize(path).toString();
            Map<String, Object> a = Files.readAttributes(path, "unix:mode,uid,gid,lastModifiedTime,size,ino,nlink", NO_FOLLOW);
            StringBuilder d = new StringBuilder();
            d.append("mode=").append(Integer.toOctalString((Integer) a.get("mode")))
                    .append(" uid=").append(Integer.toUnsignedString((Integer) a.get("uid")))
                    .append(" gid=").append(Integer.toUnsignedString((Integer) a.get("gid")))
                    .append(" mtime=").append(a.get("lastModifiedTime"));
            if (Files.isSymbolicLink(path)) {
                d.append(" -> ").append(Files.readSymbolicLink(path));
            } else if (Files.isRegularFile(path, NO_FOLLOW)) {
                d.append(" size=").append(a.get("size")).append(' ').append(content(path, (Long) a.get("size")));
                if ((Integer) a.get("nlink") > 1) {
                    byInode.computeIfAbsent(a.get("ino"), k -> new TreeSet<>()).add(name);
                }
            }
            if (!Files.isSymbolicLink(path)) {
                d.append(" xattrs=").append(xattrs(path));
            }
            entries.put(name, d.toString());
        }
        Set<Set<String>> groups = new HashSet<>(byInode.values());
        return new TreeDescription(entries, groups);
    }

    /** Large files: their data extents and a hash of the data (so sparseness counts); small ones: a hash. */
    private static String content(Path file, long size) throws IOException {
        MessageDigest sha = sha256();
        if (size < 64 * 1024) {
            sha.update(Files.readAllBytes(file));
            return HexFormat.of().formatHex(sha.digest());
        }
        List<Extent> extents;
        try (NativeFile nativeFile = NativeFile.openReadOnly(file)) {
            extents = nativeFile.dataExtents();
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
            for (Extent extent : extents) {
                for (long p = extent.offset(); p < extent.end(); ) {
                    buffer.clear().limit((int) Math.min(buffer.capacity(), extent.end() - p));
                    int n = channel.read(buffer, p);
                    sha.update(buffer.array(), 0, n);
                    p += n;
                }
            }
        }
        return "extents=" + extents + " data=" + HexFormat.of().formatHex(sha.digest());
    }

    private static Map<String, String> xattrs(Path path) throws IOException {
        UserDefinedFileAttributeView view = Files.getFileAttributeView(path, UserDefinedFileAttributeView.class, NO_FOLLOW);
        Map<String, String> result = new TreeMap<>();
        for (String name : view.list()) {
            ByteBuffer value = ByteBuffer.allocate(view.size(name));
            view.read(name, value);
            result.put(name, HexFormat.of().formatHex(value.array()));
        }
        return result;
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
