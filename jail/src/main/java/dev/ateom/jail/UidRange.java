package dev.ateom.jail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The uids (and gids, the same numbers) jailed VMMs run as: {@code --jail-uid-range A-B}. The default sits far
 * above any real user's or system's ids and below the 32-bit overflow ids.
 */
public record UidRange(int first, int last) {
    public static final UidRange DEFAULT = new UidRange(1_900_000_000, 1_900_065_535);

    public UidRange {
        if (first <= 0) throw new IllegalArgumentException("the uid range must start above 0 (root), not at " + first);
        if (last < first) throw new IllegalArgumentException("the uid range ends (" + last + ") before it starts (" + first + ")");
    }

    /** {@code A-B}, both inclusive. */
    public static UidRange parse(String text) {
        String[] parts = text.trim().split("-", -1);
        if (parts.length != 2) throw new IllegalArgumentException("expected A-B (two numbers), got '" + text + "'");
        try {
            return new UidRange(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected A-B with numbers below 2^31, got '" + text + "'", e);
        }
    }

    public int size() {
        return last - first + 1;
    }

    public boolean contains(long id) {
        return id >= first && id <= last;
    }

    /**
     * The first {@code name:x:id} entry of a passwd- or group-format file whose id falls in this range: a jailed
     * VMM must never share an id with a real user or group.
     */
    public Optional<String> overlapIn(Path idFile) {
        if (!Files.exists(idFile)) return Optional.empty();
        List<String> lines;
        try {
            lines = Files.readAllLines(idFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + idFile, e);
        }
        for (String line : lines) {
            String[] f = line.split(":", -1);
            if (f.length < 3) continue;
            try {
                if (contains(Long.parseLong(f[2]))) return Optional.of(idFile + ": " + f[0] + " has id " + f[2]);
            } catch (NumberFormatException e) {
                // a comment or a malformed line names no id
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return first + "-" + last;
    }
}
