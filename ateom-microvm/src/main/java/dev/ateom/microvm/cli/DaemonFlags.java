package dev.ateom.microvm.cli;

import dev.ateom.microvm.config.ConfigOption;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The daemon's flags read without picocli when they are the plain case: every argument a known
 * {@code --option=value} or {@code --option value}, none twice. Picocli ships Java 5 class files, which the AOT
 * cache cannot hold, so building its model and parsing with it was ~130 ms of CPU on every daemon start. Anything
 * else (help, version, an unknown or repeated option, a missing value, an {@code @file}, {@code --}) is left to
 * picocli, so its messages and exit codes stay exactly what they were.
 */
final class DaemonFlags {
    private static final Map<String, ConfigOption> BY_FLAG = new HashMap<>();

    static {
        for (ConfigOption option : ConfigOption.values()) BY_FLAG.put(option.flag(), option);
    }

    private DaemonFlags() {}

    /** The flags' values, or empty when picocli must read these arguments. */
    static Optional<Map<ConfigOption, String>> parsePlain(String[] args) {
        Map<ConfigOption, String> flags = new EnumMap<>(ConfigOption.class);
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            int eq = arg.indexOf('=');
            ConfigOption option = BY_FLAG.get(eq < 0 ? arg : arg.substring(0, eq));
            if (option == null || flags.containsKey(option)) return Optional.empty();
            String value;
            if (eq >= 0) {
                value = arg.substring(eq + 1);
            } else {
                // a value that looks like an option (or a picocli @file) is picocli's to judge
                if (i + 1 == args.length || args[i + 1].startsWith("-") || args[i + 1].startsWith("@")) return Optional.empty();
                value = args[++i];
            }
            flags.put(option, value);
        }
        return Optional.of(flags);
    }
}
