package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;

/** {@code ateom fork <sandbox> -n N}: N clones of a sandbox from one checkpoint (or its latest snapshot when suspended). */
@Command(name = "fork", description = "Make N clones of a sandbox, each with its own identity, from one checkpoint.",
        mixinStandardHelpOptions = true)
final class ForkCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "<sandbox>") String id;
    @Option(names = {"-n", "--count"}, required = true, description = "How many clones.") int count;
    @Option(names = "--name-prefix", description = "Clone i is named <prefix>-<i>. Default: <sandbox>-fork.") String namePrefix;

    @Override
    JsonNode call(DaemonClient client) throws Exception {
        ObjectNode body = CliJson.MAPPER.createObjectNode().put("count", count);
        if (namePrefix != null) body.put("namePrefix", namePrefix);
        return OperationWaiter.post(client, "forking " + id + " x" + count, "/v1/sandboxes/" + id + "/fork", body.toString());
    }

    @Override
    void printTable(JsonNode result, PrintStream out) {
        out.println("snapshot: " + result.path("snapshotId").asText() + ", " + result.path("succeeded").asInt() + " running, "
                + result.path("failed").asInt() + " failed");
        TextTable table = new TextTable("ID", "STATE", "NAME", "NAMESPACE", "MS", "ERROR");
        for (JsonNode clone : result.path("clones")) {
            table.row(clone.path("id").asText(), clone.path("state").asText("-"), clone.path("identity").path("name").asText(),
                    clone.path("identity").path("namespace").asText(), clone.path("timingsMs").path("total").asText("-"),
                    clone.path("error").asText(""));
        }
        table.print(out);
        printTimings(result.path("timingsMs"), out);
    }
}
