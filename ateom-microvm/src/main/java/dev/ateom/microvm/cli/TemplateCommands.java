package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code ateom template create|delete} and {@code ateom templates}: named snapshots of a booted, healthy spec. */
final class TemplateCommands {
    private TemplateCommands() {}

    @Command(name = "template", description = "Build or delete a template (what E2B's create-from-template clones).",
            mixinStandardHelpOptions = true, subcommands = {Create.class, Delete.class})
    static final class Group implements Runnable {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public void run() { spec.commandLine().usage(System.out); }
    }

    @Command(name = "create", description = "Boot the spec, wait for the guest agent's /health, snapshot it as template NAME.",
            mixinStandardHelpOptions = true)
    static final class Create extends ClientCommand {
        @Parameters(index = "0", paramLabel = "<name>") String name;
        @Option(names = {"-f", "--file"}, required = true, paramLabel = "<spec.json>", description = "The sandbox spec; '-' reads stdin.")
        String file;
        @Option(names = "--health-port", description = "Vsock port of the guest's health route. Default: 49983 (the agent).") Long port;
        @Option(names = "--health-path", description = "Path of the guest's health route. Default: /health.") String path;
        @Option(names = "--timeout", description = "Seconds to wait for the guest's health route. Default: 120.") Integer timeout;

        @Override
        JsonNode call(DaemonClient client) throws Exception {
            ObjectMapper json = CliJson.MAPPER;
            String spec = "-".equals(file) ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8) : Files.readString(Path.of(file));
            ObjectNode body = json.createObjectNode().put("name", name);
            body.set("spec", json.readTree(spec));
            if (port != null || path != null || timeout != null) {
                ObjectNode health = body.putObject("health");
                if (port != null) health.put("port", port);
                if (path != null) health.put("path", path);
                if (timeout != null) health.put("timeoutSeconds", timeout);
            }
            return ProgressLine.around("building template " + name, () -> client.post("/v1/templates", body.toString()));
        }

        @Override
        void printTable(JsonNode result, PrintStream out) { printTemplates(List.of(result), out); }
    }

    @Command(name = "delete", description = "Delete a template; refused while sandboxes made from it exist unless --force.",
            mixinStandardHelpOptions = true)
    static final class Delete extends ClientCommand {
        @Parameters(index = "0", paramLabel = "<name>") String name;
        @Option(names = "--force", description = "Delete even though sandboxes made from it exist (they keep running).") boolean force;

        @Override
        JsonNode call(DaemonClient client) {
            client.delete("/v1/templates/" + URLEncoder.encode(name, StandardCharsets.UTF_8) + (force ? "?force=true" : ""));
            System.out.println("deleted template " + name);
            return null;
        }

        @Override
        void printTable(JsonNode result, PrintStream out) { }
    }

    @Command(name = "templates", description = "List the templates.", mixinStandardHelpOptions = true)
    static final class Listing extends ClientCommand {
        @Override
        JsonNode call(DaemonClient client) { return client.get("/v1/templates"); }

        @Override
        void printTable(JsonNode result, PrintStream out) {
            List<JsonNode> items = new ArrayList<>();
            result.path("items").forEach(items::add);
            printTemplates(items, out);
        }
    }

    private static void printTemplates(List<JsonNode> templates, PrintStream out) {
        TextTable table = new TextTable("NAME", "SNAPSHOT", "CREATED", "SIZE", "SANDBOXES");
        for (JsonNode t : templates) {
            table.row(t.path("name").asText(), t.path("snapshotId").asText(), t.path("createdAt").asText(),
                    String.valueOf(t.path("sizeBytes").asLong()), String.valueOf(t.path("sandboxes").asInt()));
        }
        table.print(out);
    }
}
