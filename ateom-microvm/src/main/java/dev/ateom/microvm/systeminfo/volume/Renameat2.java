package dev.ateom.microvm.systeminfo.volume;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.file.Path;

/**
 * renameat2(2) through JNA: the atomic exchange of two directories is what lets a new
 * generation replace {@code ..data} without a moment where the path is absent (invariant 1).
 */
public final class Renameat2 {
    private static final int AT_FDCWD = -100;
    private static final int RENAME_NOREPLACE = 1;
    private static final int RENAME_EXCHANGE = 2;

    private interface LibC extends Library {
        int renameat2(int olddirfd, String oldpath, int newdirfd, String newpath, int flags) throws LastErrorException;
    }

    private static final LibC LIBC = Native.load("c", LibC.class);

    private Renameat2() {}

    /** Atomically swaps {@code a} and {@code b}; both must exist on the same filesystem. */
    public static void exchange(Path a, Path b) throws IOException {
        call(a, b, RENAME_EXCHANGE, "exchange");
    }

    /** Renames {@code from} to {@code to}, failing (EEXIST) instead of replacing an existing {@code to}. */
    public static void renameNoReplace(Path from, Path to) throws IOException {
        call(from, to, RENAME_NOREPLACE, "rename");
    }

    private static void call(Path a, Path b, int flags, String what) throws IOException {
        try {
            LIBC.renameat2(AT_FDCWD, a.toString(), AT_FDCWD, b.toString(), flags);
        } catch (LastErrorException e) {
            throw new IOException("renameat2 " + what + " of " + a + " and " + b + " failed: errno " + e.getErrorCode()
                    + " (" + e.getMessage() + ")", e);
        }
    }
}
