package dev.ateom.microvm.host;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * The Landlock ABI the kernel offers: {@code landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)}
 * answers it, or fails with ENOSYS (not built) or EOPNOTSUPP (not enabled at boot).
 */
final class Landlock {
    private static final long SYS_LANDLOCK_CREATE_RULESET = 444; // x86_64 and aarch64 alike (the generic table)
    private static final int LANDLOCK_CREATE_RULESET_VERSION = 1;

    interface LibC extends Library {
        long syscall(long number, Object... arguments);
    }

    private Landlock() {}

    /** The ABI version, or 0 when Landlock cannot be used here. */
    static int abi() {
        try {
            LibC libc = Native.load("c", LibC.class);
            long abi = libc.syscall(SYS_LANDLOCK_CREATE_RULESET, Pointer.NULL, 0L, LANDLOCK_CREATE_RULESET_VERSION);
            return abi < 0 ? 0 : (int) abi;
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            return 0;
        }
    }
}
