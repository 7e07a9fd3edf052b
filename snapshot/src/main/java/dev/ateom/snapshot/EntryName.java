package dev.ateom.snapshot;

import java.util.ArrayList;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * A tar entry name checked and split into its segments (raw bytes): relative, no "..", no NUL, no
 * segment longer than NAME_MAX; empty and "." segments are dropped, so {@code a//b}, {@code ./a/b}
 * and {@code a/b} are one name. The archive root ("./" or ".") has no segments.
 */
record EntryName(List<byte[]> segments) {
    static final int NAME_MAX = 255;

    static EntryName parse(byte[] raw) throws UnsafeArchiveEntryException {
        if (raw.length == 0) {
            throw new UnsafeArchiveEntryException("", "empty name");
        }
        if (raw[0] == '/') {
            throw new UnsafeArchiveEntryException(ByteNames.display(raw), "absolute path");
        }
        List<byte[]> segments = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= raw.length; i++) {
            if (i < raw.length && raw[i] == 0) {
                throw new UnsafeArchiveEntryException(ByteNames.display(raw), "NUL in name");
            }
            if (i == raw.length || raw[i] == '/') {
                int length = i - start;
                if (length == 2 && raw[start] == '.' && raw[start + 1] == '.') {
                    throw new UnsafeArchiveEntryException(ByteNames.display(raw), "'..' segment");
                }
                if (length > NAME_MAX) {
                    throw new UnsafeArchiveEntryException(ByteNames.display(raw), "a name segment is " + length
                            + " bytes (at most " + NAME_MAX + ")");
                }
                if (length > 0 && !(length == 1 && raw[start] == '.')) {
                    segments.add(Arrays.copyOfRange(raw, start, i));
                }
                start = i + 1;
            }
        }
        return new EntryName(segments);
    }

    boolean isRoot() {
        return segments.isEmpty();
    }

    byte[] last() {
        return segments.getLast();
    }

    /** The first {@code count} segments joined with '/', for messages. */
    String display(int count) {
        ByteArrayBuilder joined = new ByteArrayBuilder();
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                joined.write('/');
            }
            joined.write(segments.get(i));
        }
        return ByteNames.display(joined.toByteArray());
    }

    String display() {
        return display(segments.size());
    }

    /** One key per distinct name (bytes kept exactly: ISO-8859-1 maps each byte to one char). */
    String key() {
        return key(segments.size());
    }

    /** The key of the first {@code count} segments (an ancestor's). */
    String key(int count) {
        StringBuilder key = new StringBuilder();
        for (int i = 0; i < count; i++) {
            key.append('/').append(new String(segments.get(i), StandardCharsets.ISO_8859_1));
        }
        return key.toString();
    }
}
