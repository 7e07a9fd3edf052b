package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** {@code ateom events}: follows the daemon's events stream, one line per event (JSON lines with {@code -o json}). */
@Command(name = "events", description = "Follow sandbox events (state changes, finished operations, idle actions) until interrupted.",
        mixinStandardHelpOptions = true)
final class EventsCommand extends ClientCommand {
    private static final ObjectMapper JSON = CliJson.MAPPER;

    @Option(names = "--since", description = "Replay the events after this id first (from the daemon's ring).") Long since;
    @Option(names = "--sandbox", description = "Only this sandbox's events.") String sandbox;

    @Override
    JsonNode call(DaemonClient client) {
        StringBuilder query = new StringBuilder();
        if (since != null) query.append("&since=").append(since);
        if (sandbox != null) query.append("&sandbox=").append(URLEncoder.encode(sandbox, StandardCharsets.UTF_8));
        String path = "/v1/events" + (query.isEmpty() ? "" : "?" + query.substring(1));
        client.stream(path, new ServerSentEvents(event -> {
            print(event, options.output, System.out);
            return true;
        }, comment -> { }));
        return null;
    }

    @Override
    void printTable(JsonNode result, PrintStream out) {}

    /** One event as a line: JSON as sent, or a sentence. */
    static void print(ServerSentEvents.Event event, ClientOptions.OutputFormat format, PrintStream out) {
        if (format == ClientOptions.OutputFormat.json) {
            out.println(event.data());
            out.flush();
            return;
        }
        try {
            out.println(describe(event.type(), JSON.readTree(event.data())));
        } catch (Exception e) {
            out.println(event.type() + " " + event.data());
        }
        out.flush();
    }

    static String describe(String type, JsonNode e) {
        String head = "#" + e.path("id").asText("-") + " " + e.path("time").asText("") + " " + e.path("sandboxId").asText("") + " ";
        return head + switch (type) {
            case "state" -> e.path("oldState").asText("(new)") + " -> " + e.path("newState").asText()
                    + (e.hasNonNull("operation") ? " (" + e.get("operation").asText() + ")" : "");
            case "operation" -> e.path("operation").asText() + (e.path("succeeded").asBoolean() ? " done" : " failed: " + e.path("error").asText())
                    + (e.has("timingsMs") ? " in " + e.path("timingsMs").path("total").asLong() + " ms" : "")
                    + (e.hasNonNull("snapshotId") ? ", snapshot " + e.get("snapshotId").asText() : "");
            case "deleted" -> "deleted";
            case "idle" -> "idle: " + e.path("operation").asText() + " (" + e.path("detail").asText() + ")";
            case "sync-error" -> "system-info sync error: " + e.path("detail").asText();
            case "progress" -> e.path("operation").asText() + " " + e.path("progress").path("step").asText()
                    + (e.path("progress").hasNonNull("bytesTotal")
                    ? " " + humanBytes(e.path("progress").path("bytesDone").asLong()) + " / " + humanBytes(e.path("progress").path("bytesTotal").asLong())
                    : "");
            case "cut-off" -> "(the daemon cut this stream off: too slow; resume with --since " + e.path("resumeAfter").asText() + ")";
            default -> type + " " + e;
        };
    }
}
