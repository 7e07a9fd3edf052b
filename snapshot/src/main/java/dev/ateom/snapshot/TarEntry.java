package dev.ateom.snapshot;

import java.util.Map;

/**
 * One tar entry's header as durable.tar carries it, names as raw bytes.
 *
 * @param name       as stored (a directory's ends with '/'); any bytes but NUL
 * @param type       the tar type flag ('0' file, '1' hard link, '2' symlink, '5' directory, ...)
 * @param size       bytes of data that follow the header (for a sparse file: its data extents)
 * @param linkName   target of a symlink or hard link, else empty
 * @param extensions PAX records beyond the standard ones (xattrs, {@code ATEOM.*}), values as raw bytes
 */
record TarEntry(byte[] name, byte type, int mode, long uid, long gid, long size, long mtimeSeconds, int mtimeNanos,
                byte[] linkName, Map<String, byte[]> extensions) {
    static final byte FILE = '0';
    static final byte OLD_FILE = 0;
    static final byte HARD_LINK = '1';
    static final byte SYMLINK = '2';
    static final byte CHAR_DEVICE = '3';
    static final byte BLOCK_DEVICE = '4';
    static final byte DIRECTORY = '5';
    static final byte FIFO = '6';
    static final byte CONTIGUOUS = '7';
    static final byte[] NO_LINK = new byte[0];

    boolean isDirectory() {
        return type == DIRECTORY || ((type == FILE || type == OLD_FILE) && name.length > 0 && name[name.length - 1] == '/');
    }

    boolean isRegularFile() {
        return !isDirectory() && (type == FILE || type == OLD_FILE || type == CONTIGUOUS);
    }
}
