package dev.ateom.snapshot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Checks a snapshot's {@code config.json} against what ateom itself writes before it reaches the
 * hypervisor: the file can be edited on disk, and CHV would open every host path in it. Accepted:
 * the payload the sandbox spec names, its sizing, the shares, vsock, serial/console to a file or
 * socket (all rewritten for the restore), {@code /dev/urandom} as the RNG, and a NIC only for a
 * networked sandbox. Refused, each problem naming the field: disks, pmem, VFIO/user/vDPA devices,
 * firmware, memory zones, a debug console or TPM, and any other absolute path anywhere in the tree.
 */
public final class ChvConfigPolicy {
    /** Device lists ateom never configures: each would hand the guest a host file or device. */
    private static final List<String> FORBIDDEN_DEVICES = List.of("disks", "pmem", "devices", "user_devices", "vdpa", "sgx_epc",
            "numa", "preserved_fds", "tpm", "pci_segments");
    /** Fields that hold host paths ateom sets itself (checked here or rewritten on restore). */
    private static final Set<String> KNOWN_PATHS = Set.of("/payload/kernel", "/payload/initramfs", "/rng/src", "/vsock/socket",
            "/serial/file", "/serial/socket", "/console/file", "/console/socket");
    private static final Set<String> CONSOLE_MODES = Set.of("Off", "Null", "File", "Socket");

    /**
     * What the sandbox spec stored with the snapshot says the VM is.
     *
     * @param initramfs empty when the spec has none
     */
    public record Expected(String kernel, Optional<String> initramfs, int vcpus, long memoryBytes, boolean network) {
    }

    private ChvConfigPolicy() {
    }

    /** @return the problems, each naming its field; empty means the config is one ateom would have written */
    public static List<String> check(Path configJson, Expected expected) throws IOException {
        return check(ChvConfig.read(configJson), expected);
    }

    /** {@link #check(Path, Expected)} of a config already read: the one a restore then rewrites. */
    public static List<String> check(ChvConfig config, Expected expected) {
        return check(config.readOnly(), expected);
    }

    static List<String> check(ObjectNode config, Expected expected) {
        List<String> problems = new ArrayList<>();
        for (String device : FORBIDDEN_DEVICES) {
            JsonNode node = config.get(device);
            if (node != null && !node.isNull() && !(node.isArray() && node.isEmpty()) && !(node.isBoolean() && !node.asBoolean())) {
                problems.add(device + ": not something ateom configures");
            }
        }
        JsonNode net = config.get("net");
        if (net != null && !net.isNull() && !(net.isArray() && net.isEmpty()) && !expected.network()) {
            problems.add("net: a NIC in the snapshot of a sandbox without network");
        }
        JsonNode payload = config.path("payload");
        expectText(problems, payload, "kernel", Optional.of(expected.kernel()));
        expectText(problems, payload, "initramfs", expected.initramfs());
        for (String field : List.of("firmware", "igvm", "host_data")) {
            if (!payload.path(field).isMissingNode() && !payload.path(field).isNull()) {
                problems.add("payload." + field + ": not something ateom configures");
            }
        }
        if (config.path("cpus").path("boot_vcpus").asLong(-1) != expected.vcpus()) {
            problems.add("cpus.boot_vcpus: " + config.path("cpus").path("boot_vcpus") + ", the sandbox spec says " + expected.vcpus());
        }
        if (config.path("memory").path("size").asLong(-1) != expected.memoryBytes()) {
            problems.add("memory.size: " + config.path("memory").path("size") + ", the sandbox spec says " + expected.memoryBytes());
        }
        JsonNode zones = config.path("memory").path("zones");
        if (!zones.isMissingNode() && !zones.isNull() && !(zones.isArray() && zones.isEmpty())) {
            problems.add("memory.zones: not something ateom configures");
        }
        if (config.has("rng") && !config.path("rng").path("src").asText("").equals("/dev/urandom")) {
            problems.add("rng.src: " + config.path("rng").path("src") + ", ateom uses /dev/urandom");
        }
        for (String console : List.of("serial", "console", "debug_console")) {
            JsonNode node = config.get(console);
            if (node == null || node.isNull()) {
                continue;
            }
            String mode = node.path("mode").asText("");
            boolean allowed = console.equals("debug_console") ? mode.equals("Off") || mode.equals("Null") : CONSOLE_MODES.contains(mode);
            if (!allowed) {
                problems.add(console + ".mode: " + mode + " is not something ateom configures");
            }
        }
        findPaths(config, "", problems);
        return problems;
    }

    private static void expectText(List<String> problems, JsonNode payload, String field, Optional<String> expected) {
        JsonNode node = payload.get(field);
        Optional<String> actual = node == null || node.isNull() ? Optional.empty() : Optional.of(node.asText());
        if (!actual.equals(expected)) {
            problems.add("payload." + field + ": " + actual.orElse("absent") + ", the sandbox spec says " + expected.orElse("none"));
        }
    }

    /** Any absolute path outside the fields ateom sets (and the fs sockets) is refused. */
    private static void findPaths(JsonNode node, String pointer, List<String> problems) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                findPaths(field.getValue(), pointer + "/" + field.getKey(), problems);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                findPaths(node.get(i), pointer + "/" + i, problems);
            }
        } else if (node.isTextual() && node.asText().startsWith("/") && !KNOWN_PATHS.contains(pointer)
                && !pointer.matches("/fs/\\d+/socket")) {
            problems.add(pointer.substring(1).replace('/', '.') + ": unexpected host path");
        }
    }
}
