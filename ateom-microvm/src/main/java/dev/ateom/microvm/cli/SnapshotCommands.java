package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;

/** The snapshot subcommands of {@code ateom}. */
final class SnapshotCommands {
    private SnapshotCommands() {}

    @Command(name = "snapshots", description = "List snapshots.", mixinStandardHelpOptions = true)
    static final class List extends ClientCommand {
        @Override
        JsonNode call(DaemonClient client) { return client.get("/v1/snapshots"); }

        @Override
        void printTable(JsonNode result, PrintStream out) {
            TextTable table = new TextTable("ID", "SANDBOX", "CREATED", "SIZE", "ON DISK");
            for (JsonNode s : result.path("items")) {
                table.row(s.path("id").asText(), s.path("sourceSandboxId").asText(), s.path("createdAt").asText(),
                        humanBytes(s.path("sizeBytes").asLong()), humanBytes(s.path("allocatedBytes").asLong()));
            }
            table.print(out);
        }
    }

    @Command(name = "inspect", description = "Inspect a snapshot: manifest, shares, sizes; --verify recomputes every checksum.",
            mixinStandardHelpOptions = true)
    static final class Inspect extends ClientCommand {
        @Parameters(index = "0", paramLabel = "<snapshot>") String id;
        @Option(names = "--verify", description = "Recompute every sha256 and read the archive to its end.") boolean verify;

        @Override
        JsonNode call(DaemonClient client) throws Exception {
            return ProgressLine.around((verify ? "verifying " : "inspecting ") + id,
                    () -> client.get("/v1/snapshots/" + id + (verify ? "?verify=true" : "")));
        }

        @Override
        void printTable(JsonNode r, PrintStream out) {
            // The inspection document is nested; people get the same JSON, indented.
            try {
                out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(r));
            } catch (Exception e) {
                out.println(r);
            }
        }
    }

    @Command(name = "rmsnap", description = "Delete a snapshot.", mixinStandardHelpOptions = true)
    static final class Delete extends ClientCommand {
        @Parameters(index = "0", paramLabel = "<snapshot>") String id;
        @Option(names = "--force", description = "Delete even if it is the latest snapshot of a suspended sandbox.") boolean force;

        @Override
        JsonNode call(DaemonClient client) {
            client.delete("/v1/snapshots/" + id + (force ? "?force=true" : ""));
            return new ObjectMapper().createObjectNode().put("deleted", id);
        }

        @Override
        void printTable(JsonNode result, PrintStream out) { out.println("deleted snapshot " + id); }
    }
}
