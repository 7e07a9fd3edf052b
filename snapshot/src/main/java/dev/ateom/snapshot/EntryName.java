package dev.ateom.snapshot;

import java.util.ArrayList;
import java.util.List;

/**
 * A tar entry name checked and brought to one spelling: relative, no "..", no empty or "."
 * segments, no NUL. The archive root ("./" or ".") normalises to the empty string.
 */
final class EntryName {
    private EntryName() {
    }

    static String normalize(String raw) throws UnsafeArchiveEntryException {
        if (raw.isEmpty()) {
            throw new UnsafeArchiveEntryException(raw, "empty name");
        }
        if (raw.startsWith("/")) {
            throw new UnsafeArchiveEntryException(raw, "absolute path");
        }
        if (raw.indexOf('\0') >= 0) {
            throw new UnsafeArchiveEntryException(raw, "NUL in name");
        }
        List<String> segments = new ArrayList<>();
        for (String segment : raw.split("/")) {
            if (segment.equals("..")) {
                throw new UnsafeArchiveEntryException(raw, "'..' segment");
            }
            if (!segment.isEmpty() && !segment.equals(".")) {
                segments.add(segment);
            }
        }
        return String.join("/", segments);
    }

    static String parent(String normalized) {
        int slash = normalized.lastIndexOf('/');
        return slash < 0 ? "" : normalized.substring(0, slash);
    }
}
