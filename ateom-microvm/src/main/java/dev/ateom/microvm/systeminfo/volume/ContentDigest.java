package dev.ateom.microvm.systeminfo.volume;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * SHA-256 over (path, mode, content SHA-256) of every file of a generation, so the
 * expected content and what is on disk can be compared without holding either in memory.
 */
public final class ContentDigest {
    private ContentDigest() {}

    /** The digest the volume will have once {@code content} is committed. */
    public static String of(VolumeContent content) throws IOException {
        MessageDigest total = sha256();
        for (VolumeFile file : content.files()) {
            try (InputStream in = FileContentStreams.open(file.content())) {
                addEntry(total, file.path(), file.mode().bits(), hash(in));
            }
        }
        return HexFormat.of().formatHex(total.digest());
    }

    /**
     * The digest of a generation directory as it is on disk; empty when it holds anything
     * but directories and regular files (which the writer never creates).
     */
    public static Optional<String> ofGeneration(Path generationDir) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(generationDir)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                BasicFileAttributes attrs = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (attrs.isRegularFile()) {
                    files.add(p);
                } else if (!attrs.isDirectory()) {
                    return Optional.empty();
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        List<String> relative = files.stream().map(p -> relativeName(generationDir, p)).sorted().toList();
        MessageDigest total = sha256();
        for (String name : relative) {
            Path file = generationDir.resolve(name);
            int mode = (Integer) Files.getAttribute(file, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
            try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                addEntry(total, name, mode, hash(in));
            }
        }
        return Optional.of(HexFormat.of().formatHex(total.digest()));
    }

    private static String relativeName(Path root, Path file) {
        return root.relativize(file).toString();
    }

    private static void addEntry(MessageDigest total, String path, int mode, byte[] contentHash) {
        total.update(path.getBytes(StandardCharsets.UTF_8));
        total.update((byte) 0);
        total.update(Integer.toOctalString(mode).getBytes(StandardCharsets.US_ASCII));
        total.update((byte) 0);
        total.update(contentHash);
    }

    private static byte[] hash(InputStream in) throws IOException {
        MessageDigest digest = sha256();
        byte[] buffer = new byte[64 * 1024];
        for (int n; (n = in.read(buffer)) > 0; ) {
            digest.update(buffer, 0, n);
        }
        return digest.digest();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
