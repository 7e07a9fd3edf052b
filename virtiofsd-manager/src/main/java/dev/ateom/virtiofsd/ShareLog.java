package dev.ateom.virtiofsd;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * The log file of one share. virtiofsd writes to it directly (O_APPEND), so a restarted daemon can adopt the
 * process without a broken pipe; rotation therefore copies and truncates in place, which O_APPEND writers
 * survive (a line written during the copy may be lost; acceptable for diagnostics).
 */
public record ShareLog(Path file, long maxBytes, int keep) {

    public ShareLog {
        if (maxBytes < 1) throw new IllegalArgumentException("maxBytes must be positive, was " + maxBytes);
        if (keep < 1) throw new IllegalArgumentException("keep must be >= 1, was " + keep);
    }

    public long size() {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** {@code <file>.1} is the newest rotated generation, {@code <file>.<keep>} the oldest. */
    public Path generation(int n) {
        return file.resolveSibling(file.getFileName() + "." + n);
    }

    /** Rotates when the file exceeds maxBytes; returns whether it did. */
    public boolean rotateIfLarger() {
        if (size() <= maxBytes) return false;
        try {
            Files.deleteIfExists(generation(keep));
            for (int n = keep - 1; n >= 1; n--) {
                if (Files.exists(generation(n))) {
                    Files.move(generation(n), generation(n + 1), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            try (FileChannel source = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                 FileChannel target = FileChannel.open(generation(1), StandardOpenOption.CREATE,
                         StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                long copied = 0;
                // copy until the size stops moving, so only a write in the last instant before truncate is lost
                for (long size = source.size(); copied < size; size = source.size()) {
                    copied += source.transferTo(copied, size - copied, target);
                }
                source.truncate(0);
            }
            return true;
        } catch (IOException e) {
            throw new VirtiofsdException("cannot rotate log " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Appends a line that marks where a process's output starts (virtiofsd appends after it). Returns the line,
     * which is unique, for {@link #linesAfter}.
     */
    public String mark(String what) {
        String marker = "==== ateom " + Instant.now() + " " + UUID.randomUUID().toString().substring(0, 8)
                + ": " + what + " ====";
        try {
            Files.writeString(file, marker + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new VirtiofsdException("cannot write to log " + file + ": " + e.getMessage(), e);
        }
        return marker;
    }

    /**
     * The last lines written after the marker, looking into the rotated generations too (the marker may have been
     * rotated out of the current file). Without the marker anywhere, every line kept.
     */
    public List<String> linesAfter(String marker, int maxLines) {
        List<String> lines = new ArrayList<>();
        for (int n = keep; n >= 1; n--) {
            lines.addAll(readTail(generation(n)));
        }
        lines.addAll(readTail(file));
        int at = lines.lastIndexOf(marker);
        List<String> after = lines.subList(at + 1, lines.size());
        return List.copyOf(after.subList(Math.max(0, after.size() - maxLines), after.size()));
    }

    /** At most the last 64 KiB: enough for diagnostics. */
    private static List<String> readTail(Path path) {
        if (!Files.exists(path)) return List.of();
        try (RandomAccessFile raf = new RandomAccessFile(path.toFile(), "r")) {
            long length = raf.length();
            long from = Math.max(0, length - 64 * 1024);
            byte[] bytes = new byte[(int) (length - from)];
            raf.seek(from);
            raf.readFully(bytes);
            List<String> lines = new ArrayList<>(Arrays.asList(new String(bytes, StandardCharsets.UTF_8).split("\n")));
            lines.removeIf(String::isBlank);
            return lines;
        } catch (IOException e) {
            return List.of("(cannot read " + path + ": " + e.getMessage() + ")");
        }
    }
}
