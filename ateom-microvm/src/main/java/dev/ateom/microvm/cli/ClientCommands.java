package dev.ateom.microvm.cli;

import picocli.CommandLine;

/** Registers the client subcommands on the {@code ateom} command. */
public final class ClientCommands {
    private ClientCommands() {}

    public static void addTo(CommandLine ateom) {
        ateom.addSubcommand(new SandboxCommands.Create());
        ateom.addSubcommand(new SandboxCommands.List());
        ateom.addSubcommand(new SandboxCommands.Get());
        ateom.addSubcommand(new SandboxCommands.Suspend());
        ateom.addSubcommand(new SandboxCommands.Resume());
        ateom.addSubcommand(new CheckpointCommand());
        ateom.addSubcommand(new ForkCommand());
        ateom.addSubcommand(new ProbeCommand());
        ateom.addSubcommand(new EventsCommand());
        ateom.addSubcommand(new SandboxCommands.Clone());
        ateom.addSubcommand(new SandboxCommands.Delete());
        ateom.addSubcommand(new SandboxCommands.Egress());
        ateom.addSubcommand(new SnapshotCommands.List());
        ateom.addSubcommand(new SnapshotCommands.Inspect());
        ateom.addSubcommand(new SnapshotCommands.Delete());
        ateom.addSubcommand(new SnapshotCommands.Push());
        ateom.addSubcommand(new SnapshotCommands.StoreGc());
        ateom.addSubcommand(new SnapshotCommands.StoreResetVerdict());
        ateom.addSubcommand(new TemplateCommands.Group());
        ateom.addSubcommand(new TemplateCommands.Listing());
    }
}
