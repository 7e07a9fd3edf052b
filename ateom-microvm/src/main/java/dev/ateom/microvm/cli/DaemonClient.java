package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * The CLI's HTTP client: adds the bearer token, turns problem documents into {@link ClientException}s.
 *
 * <p>On {@link HttpURLConnection}, not {@code java.net.http.HttpClient}: a CLI call is one short JVM, and a fresh
 * JVM's first request through the HttpClient cost 0.9-1.1 s of CPU on this 2-core host (its selector thread, executor
 * and HTTP/2 machinery loaded and started) against 0.13-0.19 s through HttpURLConnection, the JVM's start included
 * (docs/decisions.md, "A CLI call's start"). A request with a body is sent in fixed-length streaming mode, which also keeps HttpURLConnection
 * from silently sending a POST again when the connection fails before the answer.
 */
final class DaemonClient {
    private static final ObjectMapper JSON = CliJson.MAPPER;
    private static final int CONNECT_TIMEOUT_MS = (int) Duration.ofSeconds(5).toMillis();
    /** An operation's answer comes when it is done: a push or a template build may take minutes. */
    private static final int ANSWER_TIMEOUT_MS = (int) Duration.ofMinutes(10).toMillis();
    private final ClientOptions options;

    DaemonClient(ClientOptions options) { this.options = options; }

    JsonNode get(String path) { return send("GET", path, null); }

    JsonNode post(String path, String jsonBody) { return send("POST", path, jsonBody); }

    JsonNode put(String path, String jsonBody) { return send("PUT", path, jsonBody); }

    JsonNode delete(String path) { return send("DELETE", path, null); }

    /**
     * Reads a Server-Sent Events stream until it ends or {@code lines} answers false, handing it each line (the SSE
     * framing is the caller's: {@link ServerSentEvents}).
     */
    void stream(String path, Predicate<String> lines) {
        HttpURLConnection connection = open("GET", path);
        // an events stream may be quiet for as long as nothing happens
        connection.setReadTimeout(0);
        connection.setRequestProperty("Accept", "text/event-stream");
        try {
            int status = connection.getResponseCode();
            if (status >= 400) {
                String body = bodyOf(connection, status);
                throw problem(status, parse(body), body);
            }
            // not closed but disconnected (below): closing a stream that has not ended waits for its end, to keep
            // the connection for another request
            BufferedReader body = new BufferedReader(new InputStreamReader(connection.getInputStream(), StandardCharsets.UTF_8));
            for (String line = body.readLine(); line != null && lines.test(line); line = body.readLine()) {
                // each line went to the caller
            }
        } catch (ConnectException e) {
            throw unreachable();
        } catch (IOException | UncheckedIOException e) {
            throw new ClientException(ExitCodes.UNREACHABLE, "the events stream from " + options.url + " broke: " + e);
        } finally {
            // closes the socket, and with it the stream
            connection.disconnect();
        }
    }

    private HttpURLConnection open(String method, String path) {
        String token;
        try {
            token = Files.readString(options.tokenFile).strip();
        } catch (IOException e) {
            throw new ClientException(ExitCodes.UNREACHABLE, "cannot read token file " + options.tokenFile + ": " + e.getMessage()
                    + " (use --token-file or ATEOM_TOKEN_FILE)");
        }
        try {
            if (!(URI.create(options.url.replaceAll("/+$", "") + path).toURL().openConnection() instanceof HttpURLConnection connection)) {
                throw new ClientException(ExitCodes.USAGE, "not a daemon URL: " + options.url + " (it is http:// or https://)");
            }
            connection.setRequestMethod(method);
            connection.setConnectTimeout(CONNECT_TIMEOUT_MS);
            connection.setReadTimeout(ANSWER_TIMEOUT_MS);
            connection.setUseCaches(false);
            connection.setRequestProperty("Authorization", "Bearer " + token);
            return connection;
        } catch (IOException | IllegalArgumentException e) {
            throw new ClientException(ExitCodes.USAGE, "not a daemon URL: " + options.url + " (" + e.getMessage() + ")");
        }
    }

    private JsonNode send(String method, String path, String body) {
        HttpURLConnection connection = open(method, path);
        try {
            if (body != null) {
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                connection.setRequestProperty("Content-Type", "application/json");
                connection.setDoOutput(true);
                connection.setFixedLengthStreamingMode(bytes.length);
                try (OutputStream out = connection.getOutputStream()) {
                    out.write(bytes);
                }
            }
            int status = connection.getResponseCode();
            String answer = bodyOf(connection, status);
            JsonNode json = parse(answer);
            if (status >= 400) throw problem(status, json, answer);
            return json;
        } catch (ConnectException e) {
            throw unreachable();
        } catch (IOException e) {
            throw new ClientException(ExitCodes.UNREACHABLE, "request to " + options.url + " failed: " + e);
        }
    }

    private ClientException unreachable() {
        return new ClientException(ExitCodes.UNREACHABLE, "cannot reach the ateom daemon at " + options.url
                + " (is it running? set --url or ATEOM_URL)");
    }

    /** The answer's body: an error's comes on the error stream, which is null when there is none. */
    private static String bodyOf(HttpURLConnection connection, int status) throws IOException {
        try (InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream()) {
            return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The failure of a call answered {@code status} with {@code problem} ({@code raw}: the body, when it is not one). */
    static ClientException problem(int status, JsonNode problem, String raw) {
        return new ClientException(ExitCodes.forStatus(status), describeProblem(status, problem, raw), problem);
    }

    private static JsonNode parse(String body) {
        if (body == null || body.isBlank()) return JSON.createObjectNode();
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            return JSON.getNodeFactory().textNode(body);
        }
    }

    private static String describeProblem(int status, JsonNode problem, String raw) {
        if (!problem.has("title")) return "HTTP " + status + ": " + raw;
        StringBuilder out = new StringBuilder(problem.path("title").asText()).append(" (HTTP ").append(status).append(")");
        if (problem.hasNonNull("detail")) out.append(": ").append(problem.get("detail").asText());
        for (JsonNode error : problem.path("errors")) {
            out.append("\n  ").append(error.path("field").asText()).append(": ").append(error.path("reason").asText());
        }
        if (problem.hasNonNull("state")) out.append("\n  sandbox state: ").append(problem.get("state").asText());
        return out.toString();
    }
}
