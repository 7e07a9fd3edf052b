package dev.ateom.microvm.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;

/**
 * The API's bearer token, kept in a 0600 file owned by the daemon's user, created with a random token on first
 * start. A file others can read, or that another user owns, is refused.
 */
public final class ApiToken {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private final byte[] token;
    private final Path file;
    private final boolean created;

    private ApiToken(byte[] token, Path file, boolean created) {
        this.token = token;
        this.file = file;
        this.created = created;
    }

    public static ApiToken loadOrCreate(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            boolean created = false;
            if (!Files.exists(file)) {
                byte[] random = new byte[32];
                new SecureRandom().nextBytes(random);
                try {
                    Files.writeString(Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY)),
                            HexFormat.of().formatHex(random) + "\n", StandardOpenOption.WRITE);
                    created = true;
                } catch (FileAlreadyExistsException raced) {
                    // another process created it between the check and here: use theirs
                }
            }
            int owner = (Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            int self = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            if (owner != self) {
                // whoever owns it can change the token, or read it back after a chmod: it is not the daemon's secret
                throw new IllegalStateException("token file " + file + " is owned by uid " + owner + ", not by the daemon's uid "
                        + self + "; chown it or remove it to have a new one created");
            }
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
            if (!OWNER_ONLY.containsAll(perms)) {
                throw new IllegalStateException("token file " + file + " is readable by others (" +
                        PosixFilePermissions.toString(perms) + "); chmod 600 it");
            }
            String value = Files.readString(file).strip();
            if (value.length() < 16) throw new IllegalStateException("token file " + file + " holds a token shorter than 16 characters");
            return new ApiToken(value.getBytes(StandardCharsets.UTF_8), file, created);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create token file " + file, e);
        }
    }

    /** Constant-time comparison, so response timing does not leak the token. */
    public boolean matches(String candidate) {
        return candidate != null && MessageDigest.isEqual(token, candidate.getBytes(StandardCharsets.UTF_8));
    }

    public Path file() { return file; }

    public boolean created() { return created; }
}
