package dev.ateom.microvm.systeminfo.spec;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One system-info volume: a directory {@code <system-info>/<name>/} in the share.
 * {@code owner}/{@code group} are numeric ids; absent means the daemon's own.
 * Lists may hold nulls as written in JSON; the validator reports them by index.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record VolumeSpec(
        @JsonProperty("name") String name,
        @JsonProperty("defaultMode") FileMode defaultMode,
        @JsonProperty("owner") Integer owner,
        @JsonProperty("group") Integer group,
        @JsonProperty("sources") List<SourceSpec> sources) {

    public VolumeSpec {
        sources = sources == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(sources));
    }

    /** The mode of files that do not set their own; 0444 when absent. */
    public FileMode effectiveDefaultMode() {
        return defaultMode == null ? FileMode.DEFAULT : defaultMode;
    }
}
