package dev.ateom.chv;

import java.nio.file.Path;

/** For tests outside this package: whether a Unix socket path has a listener, read as the client's preflight reads it. */
public final class UnixListeners {
    private UnixListeners() {
    }

    /**
     * True once something listens on {@code socket} in this network namespace. The file alone is not enough: a server
     * binds (the file appears) before it listens, and {@code vm.restore}'s preflight refuses a socket between the two.
     */
    public static boolean listening(Path socket) {
        return ListeningSockets.current().contains(socket.toString());
    }
}
