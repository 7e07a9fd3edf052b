package dev.ateom.snapshot;

/** Compression of durable.tar; extraction detects it from the first bytes, whatever was chosen. */
public enum ArchiveCompression {
    NONE,
    /** zstd through Commons Compress and zstd-jni: smaller snapshots for compressible data, more CPU. */
    ZSTD
}
