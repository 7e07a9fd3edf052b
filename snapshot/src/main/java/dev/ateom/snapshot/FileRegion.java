package dev.ateom.snapshot;

/**
 * A byte range {@code [offset, offset + length)} of an open file, handed on to be copied file to file
 * ({@link NativeFile#copyFrom}) instead of through the Java heap. The descriptor stays owned by whoever opened it.
 */
record FileRegion(int fd, long offset, long length) {
    FileRegion {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("file region with negative offset or length: " + offset + "+" + length);
        }
    }
}
