package dev.ateom.microvm.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The client subcommands of the {@code ateom} command, in the order its help lists them. */
public final class ClientCommands {
    private static final List<Class<?>> COMMANDS = List.of(SandboxCommands.Create.class, SandboxCommands.List.class,
            SandboxCommands.Get.class, SandboxCommands.Suspend.class, SandboxCommands.Resume.class, CheckpointCommand.class,
            ForkCommand.class, ProbeCommand.class, EventsCommand.class, SandboxCommands.Clone.class, SandboxCommands.Delete.class,
            SandboxCommands.Egress.class, SnapshotCommands.List.class, SnapshotCommands.Inspect.class, SnapshotCommands.Delete.class,
            SnapshotCommands.Push.class, SnapshotCommands.StoreGc.class, SnapshotCommands.StoreResetVerdict.class,
            TemplateCommands.Group.class, TemplateCommands.Listing.class);

    private ClientCommands() {}

    /** Registers every client subcommand (picocli builds each one's model from its annotations now). */
    public static void addTo(CommandLine ateom) {
        COMMANDS.forEach(ateom::addSubcommand);
    }

    /** The client subcommand called {@code name} (by its name or an alias), read from its annotation alone. */
    public static Optional<Class<?>> named(String name) {
        return COMMANDS.stream().filter(command -> {
            Command annotation = command.getAnnotation(Command.class);
            return annotation.name().equals(name) || Arrays.asList(annotation.aliases()).contains(name);
        }).findFirst();
    }
}
