package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;

/** The sandbox subcommands of {@code ateom}. */
final class SandboxCommands {
    private SandboxCommands() {}

    @Command(name = "create", description = "Create a sandbox from a JSON spec (see the README or GET /openapi.yaml).", mixinStandardHelpOptions = true)
    static final class Create extends ClientCommand {
        @Option(names = {"-f", "--file"}, required = true, paramLabel = "<spec.json>", description = "The sandbox spec; '-' reads stdin.")
        String file;

        @Override
        JsonNode call(DaemonClient client) throws Exception {
            String spec = "-".equals(file) ? new String(System.in.readAllBytes()) : Files.readString(Path.of(file));
            return ProgressLine.around("creating", () -> client.post("/v1/sandboxes", spec));
        }

        @Override
        void printTable(JsonNode result, PrintStream out) {
            printSandbox(result.path("sandbox"), out);
            printTimings(result.path("timingsMs"), out);
        }
    }

    @Command(name = "clone", description = "Create a new sandbox with a new identity from a snapshot.", mixinStandardHelpOptions = true)
    static final class Clone extends ClientCommand {
        @Parameters(index = "0", paramLabel = "<snapshot>") String snapshot;
        @Option(names = "--name", required = true, description = "Identity name of the clone.") String name;
        @Option(names = "--namespace", defaultValue = "default", description = "Identity namespace. Default: ${DEFAULT-VALUE}") String namespace;
        @Option(names = "--id", description = "Sandbox id (generated when absent).") String id;
        @Option(names = {"-f", "--file"}, paramLabel = "<overrides.json>",
                description = "Optional JSON with systemInfo, readiness or memoryRestoreMode overrides.") Path overrides;

        @Override
        JsonNode call(DaemonClient client) throws Exception {
            ObjectMapper json = CliJson.MAPPER;
            ObjectNode body = overrides == null ? json.createObjectNode() : (ObjectNode) json.readTree(overrides.toFile());
            body.put("fromSnapshot", snapshot);
            body.putObject("identity").put("name", name).put("namespace", namespace);
            if (id != null) body.put("id", id);
            return OperationWaiter.post(client, "cloning " + snapshot, "/v1/sandboxes", body.toString());
        }

        @Override
        void printTable(JsonNode result, PrintStream out) {
            printSandbox(result.path("sandbox"), out);
            printTimings(result.path("timingsMs"), out);
        }
    }

    @Command(name = "ls", description = "List sandboxes.", mixinStandardHelpOptions = true)
    static final class List extends ClientCommand {
        @Override
        JsonNode call(DaemonClient client) { return client.get("/v1/sandboxes"); }

        @Override
        void printTable(JsonNode result, PrintStream out) {
            TextTable table = new TextTable("ID", "STATE", "NAME", "NAMESPACE", "LATEST SNAPSHOT", "AGE");
            for (JsonNode s : result.path("items")) {
                table.row(s.path("id").asText(), s.path("state").asText(), s.path("identity").path("name").asText(),
                        s.path("identity").path("namespace").asText(), s.path("latestSnapshotId").asText(null), age(s.path("createdAt").asText()));
            }
            table.print(out);
        }
    }

    @Command(name = "get", description = "Show one sandbox.", mixinStandardHelpOptions = true)
    static final class Get extends ClientCommand {
        @Parameters(index = "0", paramLabel = "<sandbox>") String id;
        @Option(names = {"-w", "--watch"}, description = "Then follow its events until it is deleted (or interrupted).") boolean watch;

        @Override
        JsonNode call(DaemonClient client) {
            if (!watch) return client.get("/v1/sandboxes/" + id);
            // subscribed first, shown second: a change between the two is in the stream, not lost
            client.stream("/v1/events?sandbox=" + id, new ServerSentEvents(event -> {
                EventsCommand.print(event, options.output, System.out);
                return !event.type().equals("deleted");
            }, comment -> {
                if (comment.startsWith("events")) show(client.get("/v1/sandboxes/" + id));
            }));
            return null;
        }

        private void show(JsonNode sandbox) {
            if (options.output == ClientOptions.OutputFormat.json) {
                System.out.println(sandbox.toString());
            } else {
                printTable(sandbox, System.out);
            }
            System.out.flush();
        }

        @Override
        void printTable(JsonNode s, PrintStream out) {
            printSandbox(s, out);
            JsonNode runtime = s.path("runtime");
            if (!runtime.isMissingNode()) {
                out.println("chv pid " + runtime.path("chvPid").asLong() + ", api " + runtime.path("apiSocket").asText()
                        + ", console " + runtime.path("consoleLog").asText());
                TextTable shares = new TextTable("SHARE", "TAG", "PID", "SOCKET", "DIR");
                for (JsonNode share : runtime.path("shares")) {
                    shares.row(share.path("kind").asText(), share.path("tag").asText(), share.path("pid").asLong(),
                            share.path("socket").asText(), share.path("sharedDir").asText());
                }
                shares.print(out);
                printNetwork(runtime.path("network"), out);
            }
            JsonNode egress = s.path("spec").path("network").path("egress");
            if (s.path("spec").has("network")) out.println("egress: " + describeEgress(egress));
            if (s.hasNonNull("lastOperation")) out.println("last operation: " + s.get("lastOperation").asText());
            printTimings(s.path("lastTimingsMs"), out);
        }
    }

    @Command(name = "suspend", description = "Suspend a running sandbox to a snapshot.", mixinStandardHelpOptions = true)
    static final class Suspend extends ClientCommand {
        @Parameters(index = "0", paramLabel = "<sandbox>") String id;
        @Mixin SnapshotTagOptions tags;

        @Override
        JsonNode call(DaemonClient client) throws Exception {
            String body = tags.body();
            return OperationWaiter.post(client, "suspending " + id, "/v1/sandboxes/" + id + "/suspend" + tags.query(), body);
        }

        @Override
        void printTable(JsonNode result, PrintStream out) {
            printSandbox(result.path("sandbox"), out);
            out.println("snapshot: " + result.path("snapshotId").asText());
            printTimings(result.path("timingsMs"), out);
        }
    }

    @Command(name = "resume", description = "Resume a suspended sandbox from its latest snapshot.", mixinStandardHelpOptions = true)
    static final class Resume extends ClientCommand {
        @Parameters(index = "0", paramLabel = "<sandbox>") String id;

        @Override
        JsonNode call(DaemonClient client) throws Exception {
            return ProgressLine.around("resuming " + id, () -> client.post("/v1/sandboxes/" + id + "/resume", "{}"));
        }

        @Override
        void printTable(JsonNode result, PrintStream out) {
            printSandbox(result.path("sandbox"), out);
            printTimings(result.path("timingsMs"), out);
        }
    }

    @Command(name = "egress", description = "Replace the egress policy of a sandbox with a network (at once when running).",
            mixinStandardHelpOptions = true)
    static final class Egress extends ClientCommand {
        @Parameters(index = "0", paramLabel = "<sandbox>") String id;
        @Option(names = "--allow", paramLabel = "<cidr>", description = "An IPv4 network to allow (repeatable).") String[] allow;
        @Option(names = "--deny", paramLabel = "<cidr>", description = "An IPv4 network to deny (repeatable).") String[] deny;

        @Override
        JsonNode call(DaemonClient client) {
            ObjectNode body = CliJson.MAPPER.createObjectNode();
            if (allow != null) Arrays.stream(allow).forEach(body.putArray("allow")::add);
            if (deny != null) Arrays.stream(deny).forEach(body.putArray("deny")::add);
            return client.put("/v1/sandboxes/" + id + "/network/egress", body.toString());
        }

        @Override
        void printTable(JsonNode s, PrintStream out) {
            JsonNode egress = s.path("spec").path("network").path("egress");
            out.println(id + " egress: " + describeEgress(egress)
                    + ("RUNNING".equals(s.path("state").asText()) ? " (in force)" : " (in force from the next resume)"));
        }
    }

    @Command(name = "rm", description = "Delete a sandbox (its snapshots are kept unless --snapshots).", mixinStandardHelpOptions = true)
    static final class Delete extends ClientCommand {
        @Parameters(index = "0", paramLabel = "<sandbox>") String id;
        @Option(names = "--snapshots", description = "Also delete the sandbox's snapshots.") boolean snapshots;

        @Override
        JsonNode call(DaemonClient client) throws Exception {
            ProgressLine.around("deleting " + id, () -> client.delete("/v1/sandboxes/" + id + (snapshots ? "?deleteSnapshots=true" : "")));
            return CliJson.MAPPER.createObjectNode().put("deleted", id);
        }

        @Override
        void printTable(JsonNode result, PrintStream out) { out.println("deleted " + id); }
    }

    /** The slot, its addresses and the published ports of a running sandbox with a network. */
    static void printNetwork(JsonNode network, PrintStream out) {
        if (network.isMissingNode()) return;
        out.println("network slot " + network.path("slot").asText() + ": guest " + network.path("guestAddress").asText()
                + ", leaves as " + network.path("slotAddress").asText() + ", host side " + network.path("hostAddress").asText());
        TextTable ports = new TextTable("GUEST PORT", "HOST");
        for (JsonNode port : network.path("ports")) ports.row(port.path("guest").asInt(), "127.0.0.1:" + port.path("host").asInt());
        if (!network.path("ports").isEmpty()) ports.print(out);
    }

    /** {@code allow 10.1.0.0/16, deny 198.51.100.0/24 203.0.113.0/24} ({@code -} for an empty list). */
    static String describeEgress(JsonNode egress) {
        return "allow " + cidrs(egress.path("allow")) + ", deny " + cidrs(egress.path("deny"));
    }

    private static String cidrs(JsonNode list) {
        StringBuilder text = new StringBuilder();
        for (JsonNode cidr : list) text.append(text.isEmpty() ? "" : " ").append(cidr.asText());
        return text.isEmpty() ? "-" : text.toString();
    }

    static String age(String isoInstant) {
        try {
            Duration d = Duration.between(Instant.parse(isoInstant), Instant.now());
            if (d.toDays() > 0) return d.toDays() + "d";
            if (d.toHours() > 0) return d.toHours() + "h";
            if (d.toMinutes() > 0) return d.toMinutes() + "m";
            return d.toSeconds() + "s";
        } catch (RuntimeException e) {
            return "-";
        }
    }
}
