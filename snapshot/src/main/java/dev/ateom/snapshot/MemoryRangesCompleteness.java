package dev.ateom.snapshot;

/**
 * Whether the memory-ranges a CHV version writes is the whole guest RAM or only a delta. Measured
 * with v54 (chv-samples/ondemand-restore.md): complete after both Copy and OnDemand restores (dense
 * after OnDemand, which {@link MemoryRangesCompactor} undoes). Older versions were reported to
 * write only the pages faulted in since an OnDemand restore; their holes then mean "unchanged
 * since restore", and {@link MemoryRangesOverlay} must fill them from the retained source.
 */
public enum MemoryRangesCompleteness {
    COMPLETE,
    SPARSE_DELTA;

    static final int FIRST_MEASURED_COMPLETE_MAJOR = 54;

    /**
     * @param chvVersion       as vmm.ping reports it ("54.0.0" or "v54.0.0")
     * @param restoredOnDemand whether the VM being snapshotted was itself restored with OnDemand
     */
    public static MemoryRangesCompleteness of(String chvVersion, boolean restoredOnDemand) {
        if (!restoredOnDemand) {
            return COMPLETE;
        }
        return major(chvVersion) >= FIRST_MEASURED_COMPLETE_MAJOR ? COMPLETE : SPARSE_DELTA;
    }

    static int major(String version) {
        String digits = version.startsWith("v") ? version.substring(1) : version;
        int dot = digits.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? digits : digits.substring(0, dot));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("cannot tell the major version of CHV version '" + version + "'", e);
        }
    }
}
