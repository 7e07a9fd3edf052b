package dev.ateom.virtiofsd;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads /proc/net/unix to see whether a path has a listening socket, without connecting to it:
 * virtiofsd serves exactly one frontend and exits when it disconnects, so a probing connect would kill it.
 */
final class UnixSocketTable {

    private static final Path TABLE = Path.of("/proc/net/unix");
    /** __SO_ACCEPTCON in the Flags column: the socket is listening. */
    private static final long LISTENING_FLAG = 0x10000;

    private UnixSocketTable() {}

    /** Socket inodes listening on this path (a path stays in the table while its socket lives, even if the file was removed). */
    static Set<Long> listeningInodes(Path socketPath) {
        List<String> lines;
        try {
            lines = Files.readAllLines(TABLE);
        } catch (IOException e) {
            throw new VirtiofsdException("cannot read " + TABLE + ": " + e.getMessage(), e);
        }
        String wanted = socketPath.toString();
        Set<Long> inodes = new HashSet<>();
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            // Num RefCount Protocol Flags Type St Inode [Path]
            String[] fields = line.trim().split("\\s+", 8);
            if (fields.length < 8 || !fields[7].equals(wanted)) continue;
            long flags = Long.parseLong(fields[3], 16);
            if ((flags & LISTENING_FLAG) != 0) {
                inodes.add(Long.parseLong(fields[6]));
            }
        }
        return inodes;
    }
}
