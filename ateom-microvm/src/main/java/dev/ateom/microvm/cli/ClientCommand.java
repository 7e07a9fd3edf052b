package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine.Mixin;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/** A subcommand that calls the daemon and prints the answer as a table or as JSON. */
abstract class ClientCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = CliJson.MAPPER;

    @Mixin
    ClientOptions options;

    /** Calls the daemon; the result is printed by {@link #printTable} or as JSON (null: the command printed as it went). */
    abstract JsonNode call(DaemonClient client) throws Exception;

    abstract void printTable(JsonNode result, PrintStream out);

    @Override
    public final Integer call() {
        try {
            JsonNode result = call(new DaemonClient(options));
            if (result == null) return ExitCodes.OK;
            if (options.output == ClientOptions.OutputFormat.json) {
                System.out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(result));
            } else {
                printTable(result, System.out);
            }
            return ExitCodes.OK;
        } catch (ClientException e) {
            if (options.output == ClientOptions.OutputFormat.json && e.problem() != null) {
                System.out.println(e.problem().toPrettyString());
            }
            System.err.println("ateom: " + e.getMessage());
            return e.exitCode();
        } catch (Exception e) {
            System.err.println("ateom: " + e.getMessage());
            return ExitCodes.API_ERROR;
        }
    }

    static void printSandbox(JsonNode s, PrintStream out) {
        new TextTable("ID", "STATE", "NAME", "NAMESPACE", "UID", "LATEST SNAPSHOT")
                .row(s.path("id").asText(), s.path("state").asText(), s.path("identity").path("name").asText(),
                        s.path("identity").path("namespace").asText(), s.path("identity").path("uid").asText(),
                        s.path("latestSnapshotId").asText(null))
                .print(out);
        if (s.hasNonNull("failureReason")) out.println("failure: " + s.get("failureReason").asText());
    }

    static void printTimings(JsonNode timings, PrintStream out) {
        if (timings == null || timings.isMissingNode() || timings.isEmpty()) return;
        StringBuilder line = new StringBuilder("timings (ms):");
        timings.fields().forEachRemaining(e -> line.append(' ').append(e.getKey()).append('=').append(e.getValue().asLong()));
        out.println(line);
    }

    static String humanBytes(long bytes) {
        if (bytes < 1024) return bytes + " B";
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format("%.1f %s", v, units[u]);
    }
}
