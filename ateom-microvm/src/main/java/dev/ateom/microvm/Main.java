package dev.ateom.microvm;

import dev.ateom.microvm.cli.ClientCommands;
import dev.ateom.microvm.cli.DaemonCommand;
import dev.ateom.microvm.logging.DaemonLogManager;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.Arrays;
import java.util.Optional;

/** The {@code ateom} command: {@code ateom daemon} runs the daemon; the other subcommands talk to one. */
@Command(name = "ateom", mixinStandardHelpOptions = true, version = "ateom 0.1.0",
        description = "Sandboxes as Cloud Hypervisor micro-VMs, suspended and resumed.",
        footer = {"", "Exit codes: 0 ok, 1 API error, 2 usage, 3 daemon unreachable, 4 not found, 5 conflict (wrong state)."})
public final class Main implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        // must precede the first use of java.util.logging (see DaemonLogManager)
        System.setProperty("java.util.logging.manager", DaemonLogManager.class.getName());
        if (args.length > 0 && args[0].equals("daemon")) System.exit(DaemonCommand.execute(Arrays.copyOfRange(args, 1, args.length), "ateom daemon"));
        System.exit(commandLineFor(args).execute(args));
    }

    /**
     * The command with only the client subcommand that {@code args} name, when they name one: picocli builds a model of
     * every command it is given, by reflection over its options, and building all 21 took ~0.1 s more of a CLI call's
     * ~0.7 s here (docs/decisions.md, "A CLI call's start"). Anything else (help, the version, a mistyped name, which
     * gets the closest names) gets every command.
     */
    static CommandLine commandLineFor(String[] args) {
        Optional<Class<?>> named = args.length == 0 ? Optional.empty() : ClientCommands.named(args[0]);
        if (named.isEmpty()) return commandLine();
        CommandLine cl = new CommandLine(new Main());
        cl.addSubcommand(named.get());
        return cl;
    }

    /** The command with every subcommand. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.addSubcommand("daemon", DaemonCommand.create());
        ClientCommands.addTo(cl);
        return cl;
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
