package dev.ateom.microvm.systeminfo.spec;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** {@code systemInfo} of a sandbox spec: the volumes served on the system-info share. */
public record SystemInfoSpec(@JsonProperty("volumes") List<VolumeSpec> volumes) {
    public SystemInfoSpec {
        // nulls are kept so the validator can name them
        volumes = volumes == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(volumes));
    }
}
