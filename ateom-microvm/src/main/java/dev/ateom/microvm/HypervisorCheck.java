package dev.ateom.microvm;

import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.host.SupportedHypervisors;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Finds the cloud-hypervisor binary and, when it is missing, says how to point the daemon at one. */
public record HypervisorCheck(Path configured, Optional<Path> resolved) {
    /** How to point the daemon at a binary, for every message about the hypervisor. */
    public static final String HOW_TO_POINT = "point the daemon at it with " + ConfigOption.CLOUD_HYPERVISOR.flag() + " <path> or "
            + ConfigOption.CLOUD_HYPERVISOR.environmentVariable() + "=<path> (or 'cloud-hypervisor: <path>' in the YAML config).";

    public static HypervisorCheck of(Path configured) {
        return new HypervisorCheck(configured, resolve(configured));
    }

    public boolean available() { return resolved.isPresent(); }

    public String problem() {
        return "Cloud Hypervisor not found at '" + configured + "': sandboxes cannot be created, suspended or resumed. "
                + "Install cloud-hypervisor (" + SupportedHypervisors.range() + " are supported) and " + HOW_TO_POINT;
    }

    private static Optional<Path> resolve(Path binary) {
        if (binary.getNameCount() > 1 || binary.isAbsolute()) {
            return Files.isRegularFile(binary) && Files.isExecutable(binary) ? Optional.of(binary.toAbsolutePath()) : Optional.empty();
        }
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) continue;
            Path candidate = Path.of(dir).resolve(binary);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) return Optional.of(candidate);
        }
        return Optional.empty();
    }
}
