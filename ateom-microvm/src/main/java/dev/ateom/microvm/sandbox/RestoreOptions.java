package dev.ateom.microvm.sandbox;

/**
 * What a clone or resume request allows when its snapshot has to be pulled from the store first.
 *
 * @param allowCpuMismatch pull and restore even if the snapshot was taken on a different CPU (CHV may then refuse the restore)
 */
public record RestoreOptions(boolean allowCpuMismatch) {
    public static final RestoreOptions DEFAULT = new RestoreOptions(false);
}
