package dev.ateom.snapshot;

/** A byte range of a file: {@code [offset, offset + length)}. */
public record Extent(long offset, long length) {
    public Extent {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("extent with negative offset or length: " + offset + "+" + length);
        }
    }

    public long end() {
        return offset + length;
    }
}
