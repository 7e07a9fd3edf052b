package dev.ateom.snapshot;

/**
 * One entry as {@link DurableArchive#scan} reports it.
 *
 * @param name     for messages: the name's bytes as UTF-8, other bytes as {@code \xNN}
 * @param type     the tar type flag ('0' file, '1' hard link, '2' symlink, '5' directory, ...)
 * @param realSize the file's size once extracted (bigger than the stored data for sparse files)
 */
public record ArchiveEntryInfo(String name, char type, long realSize, String linkName) {
    public boolean regularFile() {
        return type == '0' || type == '\0' || type == '7' || type == 'S';
    }
}
