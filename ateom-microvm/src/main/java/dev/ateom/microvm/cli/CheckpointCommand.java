package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;

/** {@code ateom checkpoint <sandbox>}: a snapshot of a running sandbox that keeps running. */
@Command(name = "checkpoint", description = "Snapshot a running sandbox and keep it running (the guest pauses only for the snapshot).",
        mixinStandardHelpOptions = true)
final class CheckpointCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "<sandbox>") String id;
    @Mixin SnapshotTagOptions tags;

    @Override
    JsonNode call(DaemonClient client) throws Exception {
        String body = tags.body();
        return OperationWaiter.post(client, "checkpointing " + id, "/v1/sandboxes/" + id + "/checkpoint" + tags.query(), body);
    }

    @Override
    void printTable(JsonNode result, PrintStream out) {
        printSandbox(result.path("sandbox"), out);
        out.println("snapshot: " + result.path("snapshotId").asText() + " (guest paused "
                + result.path("timingsMs").path("pauseWindow").asLong() + " ms)");
        printTimings(result.path("timingsMs"), out);
    }
}
