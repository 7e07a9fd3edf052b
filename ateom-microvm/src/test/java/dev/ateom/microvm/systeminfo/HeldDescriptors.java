package dev.ateom.microvm.systeminfo;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What virtiofsd's find-paths migration records for an inode the guest holds: the path
 * {@code /proc/self/fd/N} shows for it at save time. Lets host-side tests check invariant 3:
 * after a saved commit, that path must exist and hold the new content.
 */
final class HeldDescriptors {
    private HeldDescriptors() {}

    /** The current path of the open file with inode {@code ino}, as the kernel reports it (may end in " (deleted)"). */
    static Optional<String> pathOf(long ino) throws IOException {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    if (((Number) Files.getAttribute(fd, "unix:ino")).longValue() == ino) {
                        return Optional.of(Files.readSymbolicLink(fd).toString());
                    }
                } catch (IOException e) {
                    // closed meanwhile or not a file
                }
            }
        }
        return Optional.empty();
    }

    static long inode(Path path) throws IOException {
        return ((Number) Files.getAttribute(path, "unix:ino")).longValue();
    }
}
