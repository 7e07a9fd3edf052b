package dev.ateom.snapshot;

/** The S_IFMT part of st_mode, as "unix:mode" reports it. */
final class FileType {
    static final int MASK = 0170000;
    static final int SOCKET = 0140000;
    static final int SYMLINK = 0120000;
    static final int REGULAR = 0100000;
    static final int BLOCK_DEVICE = 060000;
    static final int DIRECTORY = 040000;
    static final int CHAR_DEVICE = 020000;
    static final int FIFO = 010000;

    private FileType() {
    }

    static String describe(int mode) {
        return switch (mode & MASK) {
            case SOCKET -> "socket";
            case SYMLINK -> "symlink";
            case REGULAR -> "regular file";
            case BLOCK_DEVICE -> "block device";
            case DIRECTORY -> "directory";
            case CHAR_DEVICE -> "character device";
            case FIFO -> "fifo";
            default -> "file of type " + Integer.toOctalString(mode & MASK);
        };
    }
}
