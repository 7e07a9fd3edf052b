package dev.ateom.snapshot;

import java.nio.file.Path;
import java.util.List;

/**
 * Where a snapshot's files live inside its directory:
 * <pre>
 * manifest.json
 * chv/config.json      CHV's VM config (host paths of the source sandbox)
 * chv/state.json       device and CPU state
 * chv/memory-ranges    guest RAM, sparse
 * durable.tar          the durable share
 * </pre>
 */
public record SnapshotLayout(Path directory) {
    public static final String MANIFEST = "manifest.json";
    public static final String CHV_DIR = "chv";
    public static final String CHV_CONFIG = "chv/config.json";
    public static final String CHV_STATE = "chv/state.json";
    public static final String MEMORY_RANGES = "chv/memory-ranges";
    public static final String DURABLE_ARCHIVE = "durable.tar";
    /** Every file besides the manifest, as the manifest lists them. */
    public static final List<String> CONTENT_FILES = List.of(CHV_CONFIG, CHV_STATE, MEMORY_RANGES, DURABLE_ARCHIVE);

    public Path manifest() {
        return directory.resolve(MANIFEST);
    }

    public Path chvDirectory() {
        return directory.resolve(CHV_DIR);
    }

    public Path chvConfig() {
        return directory.resolve(CHV_CONFIG);
    }

    public Path chvState() {
        return directory.resolve(CHV_STATE);
    }

    public Path memoryRanges() {
        return directory.resolve(MEMORY_RANGES);
    }

    public Path durableArchive() {
        return directory.resolve(DURABLE_ARCHIVE);
    }
}
