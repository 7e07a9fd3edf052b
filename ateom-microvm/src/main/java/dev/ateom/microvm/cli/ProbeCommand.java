package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code ateom probe <sandbox> <command...>}: one command line to a running sandbox's guest probe, and its answer
 * printed as it is. The words after the sandbox are joined by one space, so {@code ateom probe a cat /etc/hostname}
 * needs no quotes. A probe error ({@code ERR ENOENT ...}) goes to stderr with exit code 1.
 */
@Command(name = "probe", description = "Send one command to a running sandbox's guest probe (e.g. whoami, cat <path>, "
        + "write <path> <data>) and print its answer.", mixinStandardHelpOptions = true)
final class ProbeCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "<sandbox>") String id;
    @Parameters(index = "1..*", arity = "1..*", paramLabel = "<command>", description = "The command line, e.g. whoami.") List<String> words;
    @Option(names = "--timeout", paramLabel = "<seconds>", description = "How long the guest may take to answer (1-60). Default: 10")
    Integer timeoutSeconds;

    @Override
    JsonNode call(DaemonClient client) {
        ObjectNode body = CliJson.MAPPER.createObjectNode().put("command", String.join(" ", words));
        if (timeoutSeconds != null) body.put("timeoutSeconds", timeoutSeconds);
        JsonNode result = client.post("/v1/sandboxes/" + id + "/probe", body.toString());
        if (!result.path("ok").asBoolean()) {
            throw new ClientException(ExitCodes.API_ERROR, "the guest probe answered ERR " + result.path("errno").asText()
                    + " " + result.path("message").asText(), result);
        }
        return result;
    }

    @Override
    void printTable(JsonNode result, PrintStream out) {
        String output = result.path("output").asText();
        out.print(output);
        if (!output.isEmpty() && !output.endsWith("\n")) out.println();
    }
}
