package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Option;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code --name} and {@code --label k=v} of the commands that take a snapshot (suspend, checkpoint): the name goes into
 * the query ({@code ?name=}), the labels into the body ({@code {"labels": {...}}}); the daemon checks both.
 */
final class SnapshotTagOptions {
    private static final ObjectMapper JSON = CliJson.MAPPER;

    @Option(names = "--name", paramLabel = "<name>", description = "Name the snapshot (unique on the host).") String name;
    @Option(names = "--label", paramLabel = "<key=value>", description = "Label the snapshot (repeatable).") List<String> labels;

    /** {@code ?name=<name>}, or nothing. */
    String query() { return name == null ? "" : "?name=" + URLEncoder.encode(name, StandardCharsets.UTF_8); }

    /** The request body: the labels, or an empty object. */
    String body() {
        ObjectNode body = JSON.createObjectNode();
        if (labels != null) {
            ObjectNode map = body.putObject("labels");
            for (String label : labels) {
                int eq = label.indexOf('=');
                if (eq < 0) throw new ClientException(ExitCodes.USAGE, "--label must be key=value, got '" + label + "'");
                map.put(label.substring(0, eq), label.substring(eq + 1));
            }
        }
        return body.toString();
    }

    /** The {@code label=k=v} query parameters of a listing filtered by these labels ({@code &}-joined, without a leading one). */
    static String labelQuery(List<String> labels) {
        return String.join("&", labels.stream().map(l -> "label=" + URLEncoder.encode(l, StandardCharsets.UTF_8)).toList());
    }
}
