package dev.ateom.store;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/** What a host must match to restore a snapshot: the CHV version that wrote it and the CPU it ran on. */
@JsonPropertyOrder({"chvVersion", "cpu"})
public record HostRequirements(String chvVersion, CpuProfile cpu) {
    public HostRequirements {
        Objects.requireNonNull(chvVersion, "host.chvVersion");
        Objects.requireNonNull(cpu, "host.cpu");
    }
}
