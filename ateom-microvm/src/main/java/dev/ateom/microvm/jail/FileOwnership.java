package dev.ateom.microvm.jail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/** Who owns the files a jailed VMM reads and writes: handed to its uid before, taken back by root after. */
final class FileOwnership {
    private FileOwnership() {}

    /** {@code path} owned by {@code uid:uid} with {@code mode} (e.g. {@code rwx------}); a symlink is never followed. */
    static void give(Path path, int uid, String mode) {
        try {
            Files.setAttribute(path, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(path, "unix:gid", uid, LinkOption.NOFOLLOW_LINKS);
            if (!Files.isSymbolicLink(path)) Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(mode));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot hand " + path + " to uid " + uid + ": " + e.getMessage(), e);
        }
    }

    /**
     * Everything under {@code dir} back to root, readable by all (dirs searchable): a snapshot the next VMM, of
     * another uid, restores from is read through its own jail's bind mount, which alone decides who sees it.
     */
    static void takeBack(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.toList()) {
                if (Files.isSymbolicLink(p)) continue;
                Files.setAttribute(p, "unix:uid", 0, LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(p, "unix:gid", 0, LinkOption.NOFOLLOW_LINKS);
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot take back " + dir + " from its VMM: " + e.getMessage(), e);
        }
    }

    /** Files directly in {@code dir} made readable by others (hard links of snapshot files a restore reads). */
    static void readableByAll(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                if (Files.isSymbolicLink(p)) continue;
                Set<PosixFilePermission> mode = Files.getPosixFilePermissions(p);
                List<PosixFilePermission> wanted = Files.isDirectory(p) ? List.of(PosixFilePermission.OTHERS_READ,
                        PosixFilePermission.OTHERS_EXECUTE) : List.of(PosixFilePermission.OTHERS_READ);
                if (!mode.containsAll(wanted)) {
                    mode.addAll(wanted);
                    Files.setPosixFilePermissions(p, mode);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make " + dir + " readable for its VMM: " + e.getMessage(), e);
        }
    }
}
