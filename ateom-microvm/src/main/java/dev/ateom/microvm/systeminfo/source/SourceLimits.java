package dev.ateom.microvm.systeminfo.source;

/** Bounds on what one volume may hold, so a hostile or mistaken source cannot exhaust the host. */
public record SourceLimits(int maxFiles, long maxFileBytes, long maxVolumeBytes) {
    public static final SourceLimits DEFAULT = new SourceLimits(4096, 16L << 20, 64L << 20);

    public SourceLimits {
        if (maxFiles < 1 || maxFileBytes < 1 || maxVolumeBytes < 1) {
            throw new IllegalArgumentException("source limits must be positive: " + maxFiles + ", " + maxFileBytes + ", " + maxVolumeBytes);
        }
    }
}
