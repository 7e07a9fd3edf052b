package dev.ateom.snapshot;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Makes a file available at a second path without copying its bytes when the filesystem allows:
 * a hard link (same filesystem), else a reflink (FICLONE: btrfs, xfs), else a sparse copy.
 */
public final class FileCloner {
    private static final System.Logger LOG = System.getLogger(FileCloner.class.getName());

    public enum Method { HARD_LINK, REFLINK, SPARSE_COPY }

    private FileCloner() {
    }

    /** target must not exist. */
    public static Method cloneOrCopy(Path source, Path target) throws IOException {
        if (!Files.isRegularFile(source, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(source + " is not a regular file (a link to it would hand the hypervisor something else)");
        }
        try {
            Files.createLink(target, source);
            return Method.HARD_LINK;
        } catch (FileSystemException e) {
            if (Files.exists(target)) {
                throw e;
            }
            // EXDEV (other filesystem) or EPERM (protected_hardlinks): try the cheaper fallbacks
        }
        if (tryReflink(source, target)) {
            return Method.REFLINK;
        }
        LOG.log(Level.WARNING, "copying {0} to {1}: no hard link or reflink possible (different filesystems?)", source, target);
        SparseCopy.copy(source, target);
        return Method.SPARSE_COPY;
    }

    private static boolean tryReflink(Path source, Path target) throws IOException {
        Files.newByteChannel(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE).close();
        boolean cloned;
        try (NativeFile from = NativeFile.openReadOnly(source); NativeFile to = NativeFile.openReadWrite(target)) {
            cloned = to.tryCloneFrom(from);
        }
        if (!cloned) {
            Files.delete(target);
        }
        return cloned;
    }
}
