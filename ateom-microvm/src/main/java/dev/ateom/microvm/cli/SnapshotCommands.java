package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.StringJoiner;

/** The snapshot subcommands of {@code ateom}. */
final class SnapshotCommands {
    private SnapshotCommands() {}

    @Command(name = "snapshots", description = "List snapshots (with their state in the snapshot store, when there is one).",
            mixinStandardHelpOptions = true)
    static final class List extends ClientCommand {
        @Option(names = "--remote", description = "List the snapshot store instead of this host.") boolean remote;
        @Option(names = "--sandbox", paramLabel = "<sandbox>", description = "Only the snapshots of this sandbox.") String sandbox;
        @Option(names = "--name", paramLabel = "<name>", description = "Only the snapshot of this name.") String name;
        @Option(names = "--label", paramLabel = "<key=value>", description = "Only snapshots with this label (repeatable; all must match).")
        String[] labels;

        @Override
        JsonNode call(DaemonClient client) {
            StringBuilder query = new StringBuilder(remote ? "&remote=true" : "");
            if (sandbox != null) query.append("&sandbox=").append(URLEncoder.encode(sandbox, StandardCharsets.UTF_8));
            if (name != null) query.append("&name=").append(URLEncoder.encode(name, StandardCharsets.UTF_8));
            if (labels != null) query.append('&').append(SnapshotTagOptions.labelQuery(Arrays.asList(labels)));
            return client.get("/v1/snapshots" + (query.isEmpty() ? "" : "?" + query.substring(1)));
        }

        @Override
        void printTable(JsonNode result, PrintStream out) {
            if (remote) {
                TextTable table = new TextTable("ID", "PUSHED");
                for (JsonNode s : result.path("items")) table.row(s.path("snapshotId").asText(), s.path("pushedAt").asText());
                table.print(out);
                return;
            }
            boolean withStore = result.path("items").findParent("remote") != null;
            TextTable table = withStore ? new TextTable("ID", "SANDBOX", "NAME", "LABELS", "PARENT", "CREATED", "SIZE", "ON DISK", "REMOTE")
                    : new TextTable("ID", "SANDBOX", "NAME", "LABELS", "PARENT", "CREATED", "SIZE", "ON DISK");
            for (JsonNode s : result.path("items")) {
                String size = humanBytes(s.path("sizeBytes").asLong());
                String onDisk = humanBytes(s.path("allocatedBytes").asLong());
                String name = s.path("name").asText("-");
                String parent = s.path("parentSnapshotId").asText("-");
                if (withStore) {
                    table.row(s.path("id").asText(), s.path("sourceSandboxId").asText(), name, labels(s.path("labels")), parent,
                            s.path("createdAt").asText(), size, onDisk, s.path("remote").path("state").asText("-"));
                } else {
                    table.row(s.path("id").asText(), s.path("sourceSandboxId").asText(), name, labels(s.path("labels")), parent,
                            s.path("createdAt").asText(), size, onDisk);
                }
            }
            table.print(out);
        }
    }

    /** {@code k=v,k2=v2}, or {@code -} for none. */
    private static String labels(JsonNode labels) {
        StringJoiner pairs = new StringJoiner(",");
        labels.fields().forEachRemaining(e -> pairs.add(e.getKey() + "=" + e.getValue().asText()));
        return pairs.length() == 0 ? "-" : pairs.toString();
    }

    @Command(name = "push", description = "Push a snapshot to the snapshot store, with a progress bar; waits until it is pushed.",
            mixinStandardHelpOptions = true)
    static final class Push extends ClientCommand {
        @Parameters(index = "0", paramLabel = "<snapshot>") String id;

        @Override
        JsonNode call(DaemonClient client) throws Exception {
            JsonNode remote = client.post("/v1/snapshots/" + id + "/push", "").path("remote");
            ProgressBar bar = new ProgressBar("pushing " + id);
            while (remote.path("state").asText().equals("pending") || remote.path("state").asText().equals("pushing")) {
                bar.show(remote.path("state").asText(), remote.path("doneBytes").asLong(), remote.path("totalBytes").asLong());
                Thread.sleep(250);
                remote = client.get("/v1/snapshots/" + id).path("remote");
            }
            bar.finish(remote.path("state").asText(), remote.path("doneBytes").asLong(), remote.path("totalBytes").asLong());
            if (!remote.path("state").asText().equals("pushed")) {
                throw new ClientException(ExitCodes.API_ERROR, "push of " + id + " " + remote.path("state").asText()
                        + ": " + remote.path("error").asText("no reason given"));
            }
            return remote;
        }

        @Override
        void printTable(JsonNode r, PrintStream out) {
            out.println("pushed " + id + ": " + humanBytes(r.path("bytesUploaded").asLong()) + " uploaded, "
                    + humanBytes(r.path("bytesDeduplicated").asLong()) + " already in the store");
        }
    }

    @Command(name = "store-gc", description = "Delete chunks no snapshot in the snapshot store references (never younger than the grace).",
            mixinStandardHelpOptions = true)
    static final class StoreGc extends ClientCommand {
        @Override
        JsonNode call(DaemonClient client) throws Exception {
            return ProgressLine.around("collecting the snapshot store", () -> client.post("/v1/store/gc", ""));
        }

        @Override
        void printTable(JsonNode r, PrintStream out) {
            out.println("removed " + r.path("removed").size() + " chunks (" + humanBytes(r.path("bytesRemoved").asLong()) + "), kept "
                    + r.path("keptYoung").asInt() + " young unreferenced ones; " + r.path("missing").size() + " referenced chunks missing");
        }
    }

    @Command(name = "store-reset-verdict", description = "Reset the snapshot store's lease verdict (after the store was fixed): "
            + "every host's recorded finding is deleted, then this host probes again and records what it finds.", mixinStandardHelpOptions = true)
    static final class StoreResetVerdict extends ClientCommand {
        @Override
        JsonNode call(DaemonClient client) throws Exception {
            return ProgressLine.around("probing the snapshot store", () -> client.post("/v1/store/lease-verdict/reset", ""));
        }

        @Override
        void printTable(JsonNode r, PrintStream out) {
            out.println("lease verdict was " + r.path("previous").path("state").asText() + "; deleted " + r.path("deletedObjects").asInt()
                    + " verdict objects; now " + r.path("leaseVerdict").path("state").asText() + " (recorded by "
                    + r.path("leaseVerdict").path("recordedBy").asText() + ": " + r.path("leaseVerdict").path("detail").asText() + ")");
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
                out.println(CliJson.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(r));
            } catch (Exception e) {
                out.println(r);
            }
        }
    }

    @Command(name = "rmsnap", description = "Delete a snapshot.", mixinStandardHelpOptions = true)
    static final class Delete extends ClientCommand {
        @Parameters(index = "0", paramLabel = "<snapshot>") String id;
        @Option(names = "--force", description = "Delete even if it is the latest snapshot of a suspended sandbox.") boolean force;
        @Option(names = "--remote", description = "Delete the snapshot store's copy instead (the local one stays).") boolean remote;

        @Override
        JsonNode call(DaemonClient client) {
            client.delete("/v1/snapshots/" + id + (remote ? "?remote=true" : force ? "?force=true" : ""));
            return CliJson.MAPPER.createObjectNode().put("deleted", id);
        }

        @Override
        void printTable(JsonNode result, PrintStream out) { out.println("deleted snapshot " + id + (remote ? " from the store" : "")); }
    }
}
