package dev.ateom.microvm.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.ateom.jail.UidRange;
import dev.ateom.network.HostFirewallMode;
import dev.ateom.network.NetworkConfig;
import dev.ateom.network.NetworkConfigException;
import dev.ateom.store.LeaseMode;
import dev.ateom.store.StoreConfigException;
import dev.ateom.store.StoreLocation;
import dev.ateom.store.StoreSettings;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** Resolves {@link DaemonConfig} from flags, then environment, then a YAML file, then defaults. */
public final class DaemonConfigLoader {
    private static final Set<String> LOG_LEVELS = Set.of("ERROR", "WARNING", "INFO", "DEBUG", "TRACE");

    private final Map<ConfigOption, String> flags;
    private final Map<String, String> environment;

    /**
     * @param flags       values given on the command line (absent options are not in the map)
     * @param environment usually {@link System#getenv()}
     */
    public DaemonConfigLoader(Map<ConfigOption, String> flags, Map<String, String> environment) {
        this.flags = new EnumMap<>(ConfigOption.class);
        this.flags.putAll(flags);
        this.environment = Map.copyOf(environment);
    }

    public DaemonConfig load() {
        Map<ConfigOption, String> yaml = readYaml();
        Map<ConfigOption, Resolved> values = new EnumMap<>(ConfigOption.class);
        for (ConfigOption option : ConfigOption.values()) {
            values.put(option, resolve(option, yaml));
        }
        Path stateDir = absolutePath(values.get(ConfigOption.STATE_DIR));
        Resolved tokenFile = values.get(ConfigOption.TOKEN_FILE);
        Path runDir = absolutePath(values.get(ConfigOption.RUN_DIR));
        return new DaemonConfig(
                nonEmpty(values.get(ConfigOption.LISTEN_HOST)),
                intInRange(values.get(ConfigOption.PORT), 0, 65535),
                values.get(ConfigOption.PORT_FILE).value().isEmpty() ? null : absolutePath(values.get(ConfigOption.PORT_FILE)),
                stateDir,
                runDir,
                absolutePaths(values.get(ConfigOption.IMAGE_ROOTS)),
                absolutePaths(values.get(ConfigOption.HOST_DIRECTORY_ROOTS)),
                tokenFile.value().isEmpty() ? stateDir.resolve("api-token") : absolutePath(tokenFile),
                Path.of(nonEmpty(values.get(ConfigOption.CLOUD_HYPERVISOR))),
                Path.of(nonEmpty(values.get(ConfigOption.VIRTIOFSD))),
                Path.of(nonEmpty(values.get(ConfigOption.VHOST_DEVICE_VSOCK))),
                Duration.ofSeconds(intInRange(values.get(ConfigOption.SYNC_RECONCILE_SECONDS), 1, 86_400)),
                intInRange(values.get(ConfigOption.MAX_REQUEST_BYTES), 1024, 64 << 20),
                bool(values.get(ConfigOption.CHILDREN_DIE_WITH_DAEMON)),
                logLevel(values.get(ConfigOption.LOG_LEVEL)),
                intInRange(values.get(ConfigOption.MAX_PARALLEL_RESTORES), 1, 256),
                network(values),
                remoteStore(values),
                intInRange(values.get(ConfigOption.VMM_POOL), 0, 64),
                intInRange(values.get(ConfigOption.VIRTIOFSD_AHEAD), 0, 256),
                Duration.ofMillis(intInRange(values.get(ConfigOption.VIRTIOFSD_AHEAD_RUNNING_MS), 0, 86_400_000)),
                intInRange(values.get(ConfigOption.CLONE_AHEAD), 0, 64),
                Duration.ofSeconds(intInRange(values.get(ConfigOption.IDLE_MINIMUM_SECONDS), 1, 86_400)),
                Duration.ofSeconds(intInRange(values.get(ConfigOption.OPERATION_RETENTION_SECONDS), 1, 86_400)),
                values.get(ConfigOption.E2B_LISTEN).value().strip(),
                values.get(ConfigOption.E2B_KEYS_FILE).value().isBlank() ? null : absolutePath(values.get(ConfigOption.E2B_KEYS_FILE)),
                jail(values));
    }

    /** The jail's options, each checked; the uid range must name no real user or group of this host. */
    private static JailConfig jail(Map<ConfigOption, Resolved> values) {
        Resolved enabled = values.get(ConfigOption.JAIL);
        boolean on = switch (nonEmpty(enabled).toLowerCase(Locale.ROOT)) {
            case "on", "true" -> true;
            case "off", "false" -> false;
            default -> throw new ConfigException(enabled.describe() + " must be on or off, got '" + enabled.value() + "'");
        };
        Resolved range = values.get(ConfigOption.JAIL_UID_RANGE);
        UidRange uids;
        try {
            uids = UidRange.parse(nonEmpty(range));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(range.describe() + ": " + e.getMessage(), e);
        }
        if (on) {
            for (Path idFile : List.of(Path.of("/etc/passwd"), Path.of("/etc/group"))) {
                uids.overlapIn(idFile).ifPresent(entry -> {
                    throw new ConfigException(range.describe() + " overlaps a real id, which a jailed VMM must never share: " + entry);
                });
            }
        }
        Resolved quota = values.get(ConfigOption.JAIL_CPU_QUOTA);
        double cpuQuota;
        if (nonEmpty(quota).equalsIgnoreCase("vcpus")) {
            cpuQuota = JailConfig.VCPUS;
        } else {
            try {
                cpuQuota = Double.parseDouble(quota.value().strip());
            } catch (NumberFormatException e) {
                throw new ConfigException(quota.describe() + " must be vcpus or a number of CPUs, got '" + quota.value() + "'");
            }
            if (!(cpuQuota >= 0 && cpuQuota <= 4096)) {
                throw new ConfigException(quota.describe() + " must be between 0 and 4096 CPUs, got " + quota.value());
            }
        }
        return new JailConfig(on, uids, intInRange(values.get(ConfigOption.JAIL_MEMORY_OVERHEAD_MIB), 16, 1 << 20),
                intInRange(values.get(ConfigOption.JAIL_PIDS_MAX), 16, 1 << 22), cpuQuota);
    }

    /** The network options when {@code network} is on, each checked and named on failure; null when it is off. */
    private static NetworkConfig network(Map<ConfigOption, Resolved> values) {
        if (!bool(values.get(ConfigOption.NETWORK))) return null;
        Resolved routed = values.get(ConfigOption.NETWORK_ROUTED_INTERFACES);
        Resolved hostNamespace = values.get(ConfigOption.NETWORK_HOST_NAMESPACE);
        try {
            NetworkConfig config = NetworkConfig.defaults()
                    .withPrefix(nonEmpty(values.get(ConfigOption.NETWORK_PREFIX)))
                    .withPool(NetworkConfig.parsePool(nonEmpty(values.get(ConfigOption.NETWORK_POOL))))
                    .withReadySlots(intInRange(values.get(ConfigOption.NETWORK_POOL_READY), 0, 64))
                    .withMaxPublishedPorts(intInRange(values.get(ConfigOption.NETWORK_MAX_PORTS), 0, 1024))
                    .withReuseDelay(Duration.ofSeconds(intInRange(values.get(ConfigOption.NETWORK_REUSE_DELAY), 0, 3600)))
                    .withRoutedInterfaces(Arrays.stream(routed.value().split(",")).map(String::strip).filter(s -> !s.isEmpty())
                            .collect(Collectors.toSet()))
                    .withHostFirewall(HostFirewallMode.parse(values.get(ConfigOption.NETWORK_HOST_FIREWALL).value()));
            return hostNamespace.value().isBlank() ? config : config.withHostNamespace(hostNamespace.value().strip());
        } catch (NetworkConfigException e) {
            ConfigOption option = byKey(e.option());
            throw new ConfigException((option == null ? e.option() : values.get(option).describe()) + ": " + e.reason());
        }
    }

    /** Empty unless {@code snapshot-store} is set; a malformed store option stops the start like any other bad value. */
    private static Optional<RemoteStoreConfig> remoteStore(Map<ConfigOption, Resolved> values) {
        Resolved location = values.get(ConfigOption.SNAPSHOT_STORE);
        boolean pushOnSuspend = bool(values.get(ConfigOption.PUSH_ON_SUSPEND));
        if (location.value().isBlank()) {
            if (pushOnSuspend) {
                throw new ConfigException(values.get(ConfigOption.PUSH_ON_SUSPEND).describe() + " needs snapshot-store to be set");
            }
            return Optional.empty();
        }
        StoreSettings settings;
        try {
            settings = StoreSettings.of(StoreLocation.parse(location.value().strip()));
        } catch (StoreConfigException e) {
            throw new ConfigException(location.describe() + ": " + e.getMessage(), e);
        }
        settings = withOptional(settings, values.get(ConfigOption.SNAPSHOT_STORE_ENDPOINT), StoreSettings::withEndpoint);
        settings = withOptional(settings, values.get(ConfigOption.SNAPSHOT_STORE_REGION), StoreSettings::withRegion);
        settings = settings.withPathStyle(bool(values.get(ConfigOption.SNAPSHOT_STORE_PATH_STYLE)))
                .withLeases(leaseMode(values.get(ConfigOption.SNAPSHOT_STORE_LEASES)));
        long cacheBytes = (long) intInRange(values.get(ConfigOption.SNAPSHOT_STORE_CACHE_MIB), 16, 16 << 20) << 20;
        Resolved hostId = values.get(ConfigOption.HOST_ID);
        return Optional.of(new RemoteStoreConfig(settings, cacheBytes, pushOnSuspend,
                hostId.value().isBlank() ? defaultHostId() : hostIdOf(hostId)));
    }

    /** A store setter that parses its value and may refuse it. */
    private interface StoreSetting {
        StoreSettings apply(StoreSettings settings, String value) throws StoreConfigException;
    }

    private static StoreSettings withOptional(StoreSettings settings, Resolved r, StoreSetting setter) {
        if (r.value().isBlank()) return settings;
        try {
            return setter.apply(settings, r.value().strip());
        } catch (StoreConfigException e) {
            throw new ConfigException(r.describe() + ": " + e.getMessage(), e);
        }
    }

    private static LeaseMode leaseMode(Resolved r) {
        return switch (nonEmpty(r).toLowerCase(Locale.ROOT)) {
            case "on", "true" -> LeaseMode.ENFORCED;
            case "off", "false" -> LeaseMode.OFF;
            default -> throw new ConfigException(r.describe() + " must be on or off, got '" + r.value() + "'");
        };
    }

    private static String hostIdOf(Resolved r) {
        String id = nonEmpty(r);
        if (!id.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,252}")) {
            throw new ConfigException(r.describe() + " must be letters, digits, '.', '_' or '-' (a host name), got '" + r.value() + "'");
        }
        return id;
    }

    private static String defaultHostId() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    /** A value and where it came from, so errors can say which source to fix. */
    record Resolved(ConfigOption option, String value, String source) {
        String describe() { return option.key() + " (from " + source + ")"; }
    }

    private Resolved resolve(ConfigOption option, Map<ConfigOption, String> yaml) {
        if (flags.containsKey(option)) return new Resolved(option, flags.get(option), "flag " + option.flag());
        String env = environment.get(option.environmentVariable());
        if (env != null) return new Resolved(option, env, "environment " + option.environmentVariable());
        if (yaml.containsKey(option)) return new Resolved(option, yaml.get(option), "config file");
        return new Resolved(option, option.defaultValue(), "default");
    }

    private Map<ConfigOption, String> readYaml() {
        Resolved file = resolve(ConfigOption.CONFIG, Map.of());
        Path path = Path.of(file.value());
        Map<ConfigOption, String> result = new EnumMap<>(ConfigOption.class);
        if (!Files.exists(path)) {
            if (!file.source().equals("default")) {
                throw new ConfigException("config file " + path + " named by " + file.source() + " does not exist");
            }
            return result;
        }
        JsonNode root;
        try {
            // an empty file sets nothing; not starting the YAML parser for it is ~50 ms less CPU at start
            if (Files.size(path) == 0) return result;
            root = new ObjectMapper(new YAMLFactory()).readTree(path.toFile());
        } catch (IOException e) {
            throw new ConfigException("config file " + path + " is not valid YAML: " + e.getMessage(), e);
        }
        if (root == null || root.isMissingNode() || root.isNull()) return result;
        if (!root.isObject()) throw new ConfigException("config file " + path + " must be a mapping of option: value");
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            ConfigOption option = byKey(field.getKey());
            if (option == null || option == ConfigOption.CONFIG) {
                throw new ConfigException("config file " + path + ": unknown option '" + field.getKey() + "'");
            }
            result.put(option, yamlValue(path, field.getKey(), field.getValue()));
        }
        return result;
    }

    /** A scalar as its text; a sequence of scalars (a list of roots) as its items joined by commas, like the flag. */
    private static String yamlValue(Path path, String key, JsonNode value) {
        if (value.isValueNode()) return value.asText();
        if (value.isArray()) {
            List<String> items = new ArrayList<>();
            for (JsonNode item : value) {
                if (!item.isValueNode()) break;
                items.add(item.asText());
            }
            if (items.size() == value.size()) return String.join(",", items);
        }
        throw new ConfigException("config file " + path + ": option '" + key + "' must be a single value or a list of values");
    }

    public static ConfigOption byKey(String key) {
        for (ConfigOption option : ConfigOption.values()) {
            if (option.key().equals(key)) return option;
        }
        return null;
    }

    private static String nonEmpty(Resolved r) {
        if (r.value().isBlank()) throw new ConfigException(r.describe() + " must not be empty");
        return r.value().strip();
    }

    private static Path absolutePath(Resolved r) {
        Path p = Path.of(nonEmpty(r));
        if (!p.isAbsolute()) throw new ConfigException(r.describe() + " must be an absolute path, got '" + r.value() + "'");
        return p.normalize();
    }

    /** A comma-separated list of absolute paths; empty (or only commas and blanks) is the empty list. */
    private static List<Path> absolutePaths(Resolved r) {
        List<Path> paths = new ArrayList<>();
        for (String part : r.value().split(",")) {
            if (part.isBlank()) continue;
            paths.add(absolutePath(new Resolved(r.option(), part, r.source())));
        }
        return paths;
    }

    private static int intInRange(Resolved r, int min, int max) {
        try {
            long v = Long.parseLong(nonEmpty(r));
            if (v < min || v > max) throw new ConfigException(r.describe() + " must be between " + min + " and " + max + ", got " + v);
            return (int) v;
        } catch (NumberFormatException e) {
            throw new ConfigException(r.describe() + " must be a whole number, got '" + r.value() + "'");
        }
    }

    private static boolean bool(Resolved r) {
        return switch (nonEmpty(r).toLowerCase(Locale.ROOT)) {
            case "true", "yes", "1" -> true;
            case "false", "no", "0" -> false;
            default -> throw new ConfigException(r.describe() + " must be true or false, got '" + r.value() + "'");
        };
    }

    private static String logLevel(Resolved r) {
        String level = nonEmpty(r).toUpperCase(Locale.ROOT);
        if (!LOG_LEVELS.contains(level)) throw new ConfigException(r.describe() + " must be one of " + LOG_LEVELS + ", got '" + r.value() + "'");
        return level;
    }
}
