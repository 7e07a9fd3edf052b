package dev.ateom.chv;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.nio.file.Path;
import java.util.List;

/**
 * Body of {@code vm.restore}. {@code netFds} describes the descriptors passed with the request (SCM_RIGHTS), in order:
 * CHV v54 hands them out to the entries, {@code num_fds} each (vmm/src/api/http/http_endpoint.rs,
 * {@code attach_fds_to_cfgs}), and refuses a snapshot whose descriptor-backed net device has no entry
 * ({@code RestoreMissingRequiredNetId}, vmm/src/config.rs {@code RestoreConfig::validate}).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record RestoreConfig(String sourceUrl, Boolean prefault, MemoryRestoreMode memoryRestoreMode, Boolean resume, List<RestoredNetConfig> netFds) {
    /** Restore from {@code dir} in the given mode, ending Paused (resume separately). */
    public static RestoreConfig fromDirectory(Path dir, MemoryRestoreMode mode) {
        return new RestoreConfig("file://" + dir.toAbsolutePath(), null, mode, null, null);
    }

    /** The same restore with new TAP descriptors for the snapshot's net devices (pass the fds in the same order). */
    public RestoreConfig withNetFds(List<RestoredNetConfig> nets) {
        return new RestoreConfig(sourceUrl, prefault, memoryRestoreMode, resume, nets);
    }

    /** The same restore, resuming the VM right after it (the VM ends Running, not Paused). */
    public RestoreConfig resuming() {
        return new RestoreConfig(sourceUrl, prefault, memoryRestoreMode, true, netFds);
    }

    /** The snapshot directory {@code source_url} names. */
    public Path sourceDirectory() {
        if (sourceUrl == null || !sourceUrl.startsWith("file://")) {
            throw new IllegalArgumentException("source_url must be a file:// URL, got " + sourceUrl);
        }
        return Path.of(sourceUrl.substring("file://".length()));
    }
}
