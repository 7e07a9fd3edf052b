package dev.ateom.chv;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/** CHV {@code memory}; {@code shared} must be true for vhost-user devices (virtio-fs). */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record MemoryConfig(long size, Boolean shared, Boolean hugepages, Boolean prefault, Boolean thp) {
    /** Shared guest memory of {@code size} bytes, as vhost-user needs. */
    public static MemoryConfig shared(long size) {
        return new MemoryConfig(size, true, null, null, null);
    }
}
