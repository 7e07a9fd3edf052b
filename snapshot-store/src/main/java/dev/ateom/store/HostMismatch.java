package dev.ateom.store;

/** One way this host differs from the snapshot's: {@code field} is {@code chvVersion}, {@code cpu.vendor}, {@code cpu.model} or {@code cpu.flags}. */
public record HostMismatch(String field, String snapshotValue, String hostValue) {
    public static final String CHV_VERSION = "chvVersion";
    public static final String CPU_VENDOR = "cpu.vendor";
    public static final String CPU_MODEL = "cpu.model";
    public static final String CPU_FLAGS = "cpu.flags";

    public boolean isCpu() {
        return field.startsWith("cpu.");
    }

    public String describe() {
        return field.equals(CPU_FLAGS)
                ? "cpu.flags: this host lacks " + hostValue
                : field + ": snapshot '" + snapshotValue + "', this host '" + hostValue + "'";
    }
}
