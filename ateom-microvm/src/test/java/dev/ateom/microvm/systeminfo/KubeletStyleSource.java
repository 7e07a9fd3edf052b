package dev.ateom.microvm.systeminfo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * Writes a directory the way the kubelet's AtomicWriter updates a Secret or ConfigMap volume:
 * payload into a new {@code ..<timestamp>.<random>} dir, {@code ..data_tmp -> <that dir>} renamed
 * over {@code ..data}, user-visible {@code <key> -> ..data/<key>} links, then the old payload
 * dir and stale links removed.
 */
public final class KubeletStyleSource {
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("'..'yyyy_MM_dd_HH_mm_ss");
    private final Path dir;

    public KubeletStyleSource(Path dir) throws IOException {
        this.dir = Files.createDirectories(dir);
    }

    public Path dir() {
        return dir;
    }

    /**
     * Replaces the whole payload (keys may contain '/'; the first segment becomes the visible link).
     * Returns {@link System#nanoTime()} right after the {@code ..data} swap: the moment the change is made.
     */
    public long update(Map<String, String> payload) throws IOException {
        Path oldData = Files.exists(dir.resolve("..data"), LinkOption.NOFOLLOW_LINKS)
                ? dir.resolve(Files.readSymbolicLink(dir.resolve("..data"))) : null;
        Path tsDir = dir.resolve(LocalDateTime.now().format(TIMESTAMP) + "." + ThreadLocalRandom.current().nextInt(1_000_000_000));
        Files.createDirectory(tsDir);
        for (var e : payload.entrySet()) {
            Path file = tsDir.resolve(e.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, e.getValue(), StandardCharsets.UTF_8);
            Files.setAttribute(file, "unix:mode", 0644);
        }
        Path tmpLink = dir.resolve("..data_tmp");
        Files.deleteIfExists(tmpLink);
        Files.createSymbolicLink(tmpLink, tsDir.getFileName());
        Files.move(tmpLink, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
        long swapped = System.nanoTime();
        Set<String> visible = new TreeSet<>();
        payload.keySet().forEach(k -> visible.add(k.split("/")[0]));
        for (String name : visible) {
            Path link = dir.resolve(name);
            if (!Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
                Files.createSymbolicLink(link, Path.of("..data", name));
            }
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.startsWith("..") && !visible.contains(name)) {
                    Files.delete(entry);
                }
            }
        }
        if (oldData != null) {
            deleteTree(oldData);
        }
        return swapped;
    }

    public static void deleteTree(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
