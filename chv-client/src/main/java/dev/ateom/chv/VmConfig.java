package dev.ateom.chv;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/** The parts of CHV's {@code VmConfig} the daemon uses (vm.create body; also what vm.info shows, other fields ignored). */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record VmConfig(CpusConfig cpus, MemoryConfig memory, PayloadConfig payload, List<FsConfig> fs, VsockConfig vsock, ConsoleConfig serial, ConsoleConfig console, RngConfig rng, PlatformConfig platform, List<NetConfig> net) {
}
