package dev.ateom.microvm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

import static java.lang.System.Logger.Level.WARNING;

/**
 * The daemon's directories are private to its user (README, "Permissions"): durable dirs hold whatever a root
 * guest wrote, setuid-root files included, and system-info copies hold secrets, so no other host user may even
 * traverse to them. A directory found open to others at start is closed, with a warning naming it.
 */
public final class PrivateDirs {
    private static final System.Logger LOG = System.getLogger(PrivateDirs.class.getName());
    public static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private PrivateDirs() {}

    /** Creates {@code dir} (and missing parents) 0700, or makes an existing one 0700; true when it had to be fixed. */
    public static boolean ensure(Path dir) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dir);
                Files.setPosixFilePermissions(dir, OWNER_ONLY);
                return false;
            }
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new IllegalStateException(dir + " is not a directory");
            }
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
            if (perms.equals(OWNER_ONLY)) return false;
            LOG.log(WARNING, "directory " + dir + " was " + PosixFilePermissions.toString(perms)
                    + ", open to other users; made it rwx------ (0700)");
            Files.setPosixFilePermissions(dir, OWNER_ONLY);
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create or secure directory " + dir, e);
        }
    }
}
