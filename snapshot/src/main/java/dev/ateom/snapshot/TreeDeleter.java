package dev.ateom.snapshot;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Deletes a directory tree without following symlinks; a missing tree is not an error. Walks
 * directory descriptors with byte names ({@code openat}/{@code unlinkat}), so a tree of any depth,
 * with paths far beyond PATH_MAX and names in no particular encoding, can always be deleted.
 */
public final class TreeDeleter {
    private TreeDeleter() {
    }

    public static void delete(Path root) throws IOException {
        Path absolute = root.toAbsolutePath();
        Path parent = absolute.getParent();
        if (parent == null) {
            throw new IOException("refusing to delete the filesystem root");
        }
        int parentFd;
        try {
            parentFd = At.openDirectory(parent);
        } catch (NativeCallException e) {
            if (e.errno() == LibC.ENOENT) {
                return;
            }
            throw e;
        }
        try {
            byte[] name = absolute.getFileName().toString().getBytes(ByteNames.pathCharset());
            FileStatus status;
            try {
                status = At.stat(parentFd, name);
            } catch (NativeCallException e) {
                if (e.errno() == LibC.ENOENT) {
                    return;
                }
                throw e;
            }
            if (status.isDirectory()) {
                deleteContents(At.openDirectory(parentFd, name));
            }
            unlinkIfPresent(parentFd, name, status.isDirectory());
        } finally {
            At.close(parentFd);
        }
    }

    /** Empties the directory open at {@code dirFd} (and closes it), depth first, iteratively. */
    private static void deleteContents(int dirFd) throws IOException {
        List<At.DirEntry> top;
        try {
            top = new ArrayList<>(At.list(dirFd));
        } catch (IOException | RuntimeException e) {
            At.close(dirFd);
            throw e;
        }
        try (DirectoryChain<List<At.DirEntry>> chain = new DirectoryChain<>(dirFd, top)) {
            while (true) {
                List<At.DirEntry> remaining = chain.state();
                if (remaining.isEmpty()) {
                    if (chain.depth() == 0) {
                        return;
                    }
                    byte[] name = chain.name(chain.depth());
                    chain.pop((fd, state) -> { });
                    unlinkIfPresent(chain.fd(), name, true);
                    continue;
                }
                At.DirEntry entry = remaining.removeLast();
                boolean directory = entry.type() == At.DirEntry.DT_DIR
                        || (entry.type() == 0 && isDirectory(chain.fd(), entry.name()));
                if (!directory) {
                    unlinkIfPresent(chain.fd(), entry.name(), false);
                    continue;
                }
                int fd;
                try {
                    fd = At.openDirectory(chain.fd(), entry.name());
                } catch (NativeCallException e) {
                    if (e.errno() == LibC.ENOENT) {
                        continue;
                    }
                    throw e;
                }
                List<At.DirEntry> children;
                try {
                    children = new ArrayList<>(At.list(fd));
                } catch (IOException | RuntimeException e) {
                    At.close(fd);
                    throw e;
                }
                chain.push(entry.name(), fd, children);
            }
        }
    }

    private static boolean isDirectory(int dirFd, byte[] name) throws IOException {
        try {
            return At.stat(dirFd, name).isDirectory();
        } catch (NativeCallException e) {
            if (e.errno() == LibC.ENOENT) {
                return false;
            }
            throw e;
        }
    }

    private static void unlinkIfPresent(int dirFd, byte[] name, boolean directory) throws IOException {
        try {
            At.unlink(dirFd, name, directory);
        } catch (NativeCallException e) {
            if (e.errno() != LibC.ENOENT) {
                throw e;
            }
        }
    }
}
