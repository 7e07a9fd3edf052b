package dev.ateom.chv;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.nio.file.Path;
import java.util.List;

/** Body of {@code vm.restore}. {@code netFds} describes the fds passed with the request (SCM_RIGHTS), in order. */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record RestoreConfig(String sourceUrl, Boolean prefault, MemoryRestoreMode memoryRestoreMode, Boolean resume, List<RestoredNetConfig> netFds) {
    /** Restore from {@code dir} in the given mode, ending Paused (resume separately). */
    public static RestoreConfig fromDirectory(Path dir, MemoryRestoreMode mode) {
        return new RestoreConfig("file://" + dir.toAbsolutePath(), null, mode, null, null);
    }

    /** The snapshot directory {@code source_url} names. */
    public Path sourceDirectory() {
        if (sourceUrl == null || !sourceUrl.startsWith("file://")) {
            throw new IllegalArgumentException("source_url must be a file:// URL, got " + sourceUrl);
        }
        return Path.of(sourceUrl.substring("file://".length()));
    }
}
