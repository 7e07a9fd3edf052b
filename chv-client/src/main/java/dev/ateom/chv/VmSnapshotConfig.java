package dev.ateom.chv;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.nio.file.Path;

/** Body of {@code vm.snapshot}: a {@code file://} URL of an existing, empty directory. */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record VmSnapshotConfig(String destinationUrl) {
    public static VmSnapshotConfig toDirectory(Path dir) {
        return new VmSnapshotConfig("file://" + dir.toAbsolutePath());
    }
}
