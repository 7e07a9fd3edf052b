package dev.ateom.snapshot;

import java.io.IOException;

/** An archive entry that extraction refuses (escape, symlink trick, device node, collision). */
public class UnsafeArchiveEntryException extends IOException {
    private final String entryName;

    public UnsafeArchiveEntryException(String entryName, String reason) {
        super("refused archive entry '" + entryName + "': " + reason);
        this.entryName = entryName;
    }

    public String entryName() {
        return entryName;
    }
}
