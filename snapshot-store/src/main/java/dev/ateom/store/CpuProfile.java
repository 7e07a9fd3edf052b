package dev.ateom.store;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The CPU a snapshot was taken on, from /proc/cpuinfo: CHV compares CPUID on restore, so a restore host must
 * be the same vendor and model and offer every flag the snapshot's host had.
 */
@JsonPropertyOrder({"vendor", "family", "model", "modelName", "flags"})
public record CpuProfile(String vendor, String family, String model, String modelName, List<String> flags) {
    /** Manifest annotation under which the daemon may record the CPU at snapshot time (JSON of this record). */
    public static final String ANNOTATION = "ateom.dev/host-cpu";

    public CpuProfile {
        Objects.requireNonNull(vendor, "cpu.vendor");
        Objects.requireNonNull(family, "cpu.family");
        Objects.requireNonNull(model, "cpu.model");
        modelName = modelName == null ? "" : modelName;
        flags = List.copyOf(new TreeSet<>(Objects.requireNonNull(flags, "cpu.flags")));
    }
}
