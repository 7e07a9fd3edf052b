package dev.ateom.snapshot;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The rules extraction applies, checked without extracting (for {@code ?verify=true}: "a restore
 * will work"): names (no absolute, {@code ..}, NUL, segment over 255 bytes), collisions after
 * normalisation, parents that are symlinks or files, hard links to anything but an earlier regular
 * file, device nodes and fifos, and no more entries than the manifest lists. Unlike extraction it
 * keeps one map entry per archive entry (the filesystem is not there to ask), which the entry cap
 * bounds.
 */
final class ArchiveEntryRules {
    private enum Kind { DIRECTORY, IMPLICIT_DIRECTORY, FILE, SYMLINK }

    private final Map<String, Kind> seen = new HashMap<>();

    private ArchiveEntryRules() {
    }

    /** Reads the whole archive; the first broken rule is thrown ({@link UnsafeArchiveEntryException} names the entry). */
    static long check(Path archive, long maxEntries) throws IOException {
        ArchiveEntryRules rules = new ArchiveEntryRules();
        long entries = 0;
        try (TarInput in = ArchiveReader.open(archive)) {
            TarEntry entry;
            while ((entry = in.next()) != null) {
                if (entries == maxEntries) {
                    throw new UnsafeArchiveEntryException(ByteNames.display(entry.name()),
                            "the archive holds more than the " + maxEntries + " entries its manifest lists");
                }
                rules.accept(entry);
                in.content().transferTo(OutputStream.nullOutputStream());
                entries++;
            }
        }
        return entries;
    }

    private void accept(TarEntry entry) throws UnsafeArchiveEntryException {
        String raw = ByteNames.display(entry.name());
        EntryName name = EntryName.parse(entry.name());
        boolean directory = entry.isDirectory();
        if (name.isRoot()) {
            if (!directory) {
                throw new UnsafeArchiveEntryException(raw, "the archive root must be a directory");
            }
            return;
        }
        int parents = name.segments().size() - 1;
        for (int i = 0; i < parents; i++) {
            String key = name.key(i + 1);
            Kind kind = seen.get(key);
            if (kind == null) {
                seen.put(key, Kind.IMPLICIT_DIRECTORY);
            } else if (kind == Kind.SYMLINK) {
                throw new UnsafeArchiveEntryException(raw, "would pass through the symlink '" + name.display(i + 1) + "'");
            } else if (kind == Kind.FILE) {
                throw new UnsafeArchiveEntryException(raw, "parent '" + name.display(i + 1) + "' is not a directory");
            }
        }
        String full = name.key();
        Kind existing = seen.get(full);
        if (existing != null && !(directory && (existing == Kind.DIRECTORY || existing == Kind.IMPLICIT_DIRECTORY))) {
            throw new UnsafeArchiveEntryException(raw, "collides with an earlier entry named '" + name.display() + "' after normalisation");
        }
        if (directory) {
            seen.put(full, Kind.DIRECTORY);
            return;
        }
        switch (entry.type()) {
            case TarEntry.FILE, TarEntry.OLD_FILE, TarEntry.CONTIGUOUS -> seen.put(full, Kind.FILE);
            case TarEntry.SYMLINK -> {
                if (entry.linkName().length == 0) {
                    throw new UnsafeArchiveEntryException(raw, "symlink with an empty target");
                }
                for (byte b : entry.linkName()) {
                    if (b == 0) {
                        throw new UnsafeArchiveEntryException(raw, "NUL in the symlink target");
                    }
                }
                seen.put(full, Kind.SYMLINK);
            }
            case TarEntry.HARD_LINK -> {
                EntryName target;
                try {
                    target = EntryName.parse(entry.linkName());
                } catch (UnsafeArchiveEntryException e) {
                    throw new UnsafeArchiveEntryException(raw, "hard link target '" + ByteNames.display(entry.linkName()) + "': " + e.getMessage());
                }
                if (seen.get(target.key()) != Kind.FILE) {
                    throw new UnsafeArchiveEntryException(raw, "hard link target '" + ByteNames.display(entry.linkName())
                            + "' is not a regular file extracted earlier");
                }
                seen.put(full, Kind.FILE);
            }
            case TarEntry.CHAR_DEVICE -> throw new UnsafeArchiveEntryException(raw, "character device node");
            case TarEntry.BLOCK_DEVICE -> throw new UnsafeArchiveEntryException(raw, "block device node");
            case TarEntry.FIFO -> throw new UnsafeArchiveEntryException(raw, "fifo");
            default -> throw new UnsafeArchiveEntryException(raw, "unsupported entry type '" + (char) entry.type() + "'");
        }
    }
}
