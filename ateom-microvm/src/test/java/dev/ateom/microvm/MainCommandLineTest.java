package dev.ateom.microvm;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link Main#commandLineFor}: only the subcommand a call names is built, and every name still leads to its command. */
class MainCommandLineTest {

    @Test
    void aClientCallGetsOnlyTheSubcommandItNames() {
        for (String name : clientNames()) {
            CommandLine cl = Main.commandLineFor(new String[] {name, "--help"});
            assertThat(cl.getSubcommands().keySet()).as("built for %s", name).containsExactly(name);
        }
    }

    @Test
    void helpTheVersionAMistypedNameAndTheDaemonGetEveryCommand() {
        Set<String> all = Main.commandLine().getSubcommands().keySet();
        assertThat(all).contains("daemon").containsAll(clientNames());
        for (String[] args : new String[][] {{}, {"--help"}, {"-V"}, {"lss"}, {"daemon", "--help"}}) {
            assertThat(Main.commandLineFor(args).getSubcommands().keySet()).as(String.join(" ", args)).isEqualTo(all);
        }
    }

    /** The client subcommands' names as the full command knows them. */
    private static Set<String> clientNames() {
        Set<String> names = new TreeSet<>(Main.commandLine().getSubcommands().keySet());
        names.remove("daemon");
        assertThat(names).hasSizeGreaterThan(15);
        return names;
    }
}
