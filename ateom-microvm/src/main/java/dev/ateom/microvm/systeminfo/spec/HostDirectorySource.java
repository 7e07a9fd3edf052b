package dev.ateom.microvm.systeminfo.spec;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Mirrors a host directory (plain, or with the kubelet's {@code ..data} symlink layout).
 * Without {@code items} every file of the source's current data is projected under its own
 * relative path; with them only the listed keys, each at its {@code path}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record HostDirectorySource(@JsonProperty("path") String path, @JsonProperty("items") List<KeyItem> items) {

    public HostDirectorySource {
        items = items == null ? null : Collections.unmodifiableList(new ArrayList<>(items));
    }

    public boolean projectsAllFiles() {
        return items == null;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record KeyItem(
            @JsonProperty("key") String key,
            @JsonProperty("path") String path,
            @JsonProperty("mode") FileMode mode) {}
}
