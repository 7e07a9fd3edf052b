package dev.ateom.snapshot;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** What statx reports about one file (never following a final symlink). */
record FileStatus(int mode, int nlink, long uid, long gid, long ino, long dev, long size, long mtimeSeconds, int mtimeNanos) {
    static final int STATX_SIZE = 256;

    static FileStatus parse(byte[] statx) {
        ByteBuffer b = ByteBuffer.wrap(statx).order(ByteOrder.nativeOrder());
        return new FileStatus(Short.toUnsignedInt(b.getShort(28)), b.getInt(16), Integer.toUnsignedLong(b.getInt(20)),
                Integer.toUnsignedLong(b.getInt(24)), b.getLong(32), ((long) b.getInt(136) << 32) | Integer.toUnsignedLong(b.getInt(140)),
                b.getLong(40), b.getLong(112), b.getInt(120));
    }

    int type() {
        return mode & FileType.MASK;
    }

    boolean isDirectory() {
        return type() == FileType.DIRECTORY;
    }

    boolean isRegularFile() {
        return type() == FileType.REGULAR;
    }

    boolean sameFile(FileStatus other) {
        return ino == other.ino && dev == other.dev;
    }
}
