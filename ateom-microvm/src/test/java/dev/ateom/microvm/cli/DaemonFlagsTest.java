package dev.ateom.microvm.cli;

import dev.ateom.microvm.config.ConfigOption;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.util.EnumMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DaemonFlagsTest {

    @Test
    void plainFlagsReadTheSameAsPicocliReadsThem() {
        String[][] cases = {
            {},
            {"--port", "0", "--state-dir", "/tmp/s", "--log-level=WARNING"},
            {"--image-roots=/a,/b", "--config", "/etc/x.yaml", "--port-file", "/tmp/p", "--vmm-pool", "0"},
            {"--host-directory-roots=", "--listen-host", "::1", "--token-file=/t=x"},
        };
        for (String[] args : cases) {
            assertThat(DaemonFlags.parsePlain(args)).as(String.join(" ", args)).contains(picocli(args));
        }
    }

    @Test
    void anythingButPlainFlagsIsLeftToPicocli() {
        String[][] cases = {
            {"--help"}, {"-h"}, {"-V"}, {"--version"},
            {"--port"},                          // value missing
            {"--port", "1", "--port", "2"},      // repeated
            {"--port=1", "--port", "2"},
            {"--no-such-flag", "x"},
            {"stray"},
            {"@args.txt"},
            {"--state-dir", "@dir"},
            {"--port", "--state-dir"},           // a value that looks like an option
            {"--port", "-1"},
            {"--", "--port", "1"},
        };
        for (String[] args : cases) {
            assertThat(DaemonFlags.parsePlain(args)).as(String.join(" ", args)).isEmpty();
        }
    }

    private static Map<ConfigOption, String> picocli(String[] args) {
        CommandLine cl = DaemonCommand.create();
        cl.parseArgs(args);
        Map<ConfigOption, String> values = new EnumMap<>(ConfigOption.class);
        for (ConfigOption option : ConfigOption.values()) {
            OptionSpec spec = cl.getCommandSpec().findOption(option.flag());
            if (spec.getValue() != null) values.put(option, spec.getValue());
        }
        return values;
    }
}
