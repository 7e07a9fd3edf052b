package dev.ateom.microvm.cli;

import dev.ateom.microvm.Daemon;
import dev.ateom.microvm.config.ConfigException;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.config.DaemonConfig;
import dev.ateom.microvm.config.DaemonConfigLoader;
import dev.ateom.microvm.logging.LogSetup;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/** {@code ateom daemon}: runs the daemon in the foreground until SIGTERM/SIGINT. Options come from {@link ConfigOption}. */
public final class DaemonCommand implements Callable<Integer> {
    private CommandSpec spec;

    private DaemonCommand() {}

    public static CommandLine create() {
        // the spec's user object must be the command itself: as a subcommand of `ateom`, picocli runs the parent's
        // execution strategy, which calls the parsed subcommand's user object (an execution strategy set here is ignored)
        DaemonCommand command = new DaemonCommand();
        CommandSpec spec = CommandSpec.wrapWithoutInspection(command)
                .name("daemon")
                .mixinStandardHelpOptions(true);
        spec.usageMessage()
                .description("Run the ateom daemon in the foreground (stops cleanly on SIGTERM).",
                        "Each option may also come from the environment (ATEOM_<OPTION>) or the YAML config file;",
                        "flags win over the environment, which wins over the file.");
        for (ConfigOption option : ConfigOption.values()) {
            spec.addOption(OptionSpec.builder(option.flag())
                    .paramLabel("<" + option.key() + ">")
                    .type(String.class)
                    .description(option.description() + " Env " + option.environmentVariable()
                            + (option.defaultValue().isEmpty() ? "." : ". Default: " + option.defaultValue()))
                    .build());
        }
        command.spec = spec;
        return new CommandLine(spec);
    }

    /**
     * Runs {@code ateom daemon args}: plain flags are read directly ({@link DaemonFlags}), anything else by picocli
     * as {@code commandName}.
     */
    public static int execute(String[] args, String commandName) {
        Optional<Map<ConfigOption, String>> plain = DaemonFlags.parsePlain(args);
        if (plain.isPresent()) return run(plain.get());
        CommandLine daemon = create();
        daemon.setCommandName(commandName);
        return daemon.execute(args);
    }

    @Override
    public Integer call() {
        Map<ConfigOption, String> flags = new EnumMap<>(ConfigOption.class);
        for (ConfigOption option : ConfigOption.values()) {
            OptionSpec spec = this.spec.findOption(option.flag());
            if (spec != null && spec.getValue() != null) flags.put(option, spec.getValue());
        }
        return run(flags);
    }

    private static int run(Map<ConfigOption, String> flags) {
        DaemonConfig config;
        try {
            config = new DaemonConfigLoader(flags, System.getenv()).load();
        } catch (ConfigException e) {
            System.err.println("ateom: " + e.getMessage());
            return 2;
        }
        LogSetup.install(config.logLevel());
        Daemon daemon;
        try {
            daemon = Daemon.start(config);
        } catch (ConfigException e) {
            // a setting that only the host can refuse (the network pool overlapping its routes)
            System.err.println("ateom: " + e.getMessage());
            return 2;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(daemon::close, "ateom-shutdown"));
        try {
            daemon.awaitStop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }
}
