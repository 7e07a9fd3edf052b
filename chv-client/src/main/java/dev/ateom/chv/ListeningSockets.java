package dev.ateom.chv;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * Which Unix socket paths have a listener, read from {@code /proc/net/unix} — without connecting, because
 * a vhost-user back-end such as virtiofsd serves exactly one connection and exits when it closes.
 */
final class ListeningSockets {
    private static final Path PROC_NET_UNIX = Path.of("/proc/net/unix");
    private static final int SO_ACCEPTCON = 0x10000;

    private ListeningSockets() {
    }

    /** Paths of every listening Unix stream socket in this network namespace. */
    static Set<String> current() {
        Set<String> paths = new HashSet<>();
        try {
            for (String line : Files.readAllLines(PROC_NET_UNIX)) {
                String[] fields = line.trim().split("\\s+");
                if (fields.length < 8 || fields[0].startsWith("Num")) {
                    continue;
                }
                int flags = Integer.parseInt(fields[3], 16);
                if ((flags & SO_ACCEPTCON) != 0) {
                    paths.add(fields[7]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("cannot read " + PROC_NET_UNIX + ": " + e.getMessage(), e);
        }
        return paths;
    }
}
